// Package activities holds pcflow's Temporal activities: observation and
// the Decision agent (Decide), executing an action (Act), the Reflection
// agent (Reflect), the Progress and Manager agents, setup steps and checks.
//
// Contract:
//   - Decide, Reflect, Progress and Manage have no side effects on the device
//     and may be retried freely; API errors that retrying cannot fix (a
//     rejected key, an unknown model, a bad request) and answers that stay
//     invalid after re-asking are non-retryable application errors with the
//     ErrType constants below.
//   - Act is idempotent per action id: the device's action log records an
//     action before it runs and after it finishes. A retried Act whose
//     action finished returns the recorded result; one whose action started
//     but never finished (the worker died mid-action) is not run again and
//     reports OutcomeUnknown, so the workflow re-observes and decides anew.
//   - Checks and setup steps touch the device's files and programs only
//     through the device (Files, Commands); a device on the worker's host
//     gives them with activities/local.
//   - Screenshots, element lists and model exchanges go to the artifact
//     store; results carry references, never pixels.
//   - Record (a run's video) runs until the workflow cancels it,
//     heartbeating; each attempt records a segment file of its own, so a
//     retry after a dead worker adds a segment and loses none. Video
//     stores the segments (content-addressed: retrying stores nothing
//     twice). A device that cannot record fails Record with ErrTypeNoVideo,
//     not retried.
package activities
