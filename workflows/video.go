package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
)

// Video is one device's recording of a run (Options.Video, or the task's
// video = true): its segments in the artifact store, in order (more than
// one when the device's worker was restarted during the task), and a note
// when the video is missing or ends early.
type Video struct {
	Device   string                    `json:"device"`
	Segments []activities.VideoSegment `json:"segments,omitempty"`
	Note     string                    `json:"note,omitempty"`
}

// videoHeartbeat is how soon a recording whose worker died is noticed and
// started again on its successor; a cancelled recording stops within
// about as long (the SDK reports heartbeats at most every 4/5 of it).
const videoHeartbeat = 5 * time.Second

// recording is a Record activity under way on one device.
type recording struct {
	device string
	in     activities.RecordInput
	f      workflow.Future
	cancel workflow.CancelFunc
	note   string
}

// startVideo starts recording every device of the task when the run asks
// for video; nil when it does not. A task with sensitive variables is not
// recorded: what the agent types in clear text would be in the pixels of
// every frame (screenshots paint over them, a video cannot be painted
// after the fact), so each device gets a note saying so instead.
func startVideo(ctx workflow.Context, in InstructionInput, o Options, deadline time.Time) []*recording {
	p := in.Plan
	if !in.Options.Video && !p.Video {
		return nil
	}
	info := workflow.GetInfo(ctx)
	key := info.WorkflowExecution.ID + "/" + info.WorkflowExecution.RunID
	var recs []*recording
	for _, d := range p.Devices {
		r := &recording{device: d.Name, in: activities.RecordInput{Key: key, Device: d.Name}}
		recs = append(recs, r)
		if len(p.Secrets) > 0 {
			r.note = fmt.Sprintf("not recorded: the task has sensitive variables (%s), whose values a video would show", strings.Join(p.Secrets, ", "))
			continue
		}
		now := workflow.Now(ctx)
		ao := deviceOptions(o, d.Name, deadline.Add(time.Hour), now)
		ao.StartToCloseTimeout = ao.ScheduleToCloseTimeout
		ao.HeartbeatTimeout = videoHeartbeat
		ao.WaitForCancellation = true
		ao.RetryPolicy.NonRetryableErrorTypes = append(ao.RetryPolicy.NonRetryableErrorTypes, activities.ErrTypeNoVideo)
		var rctx workflow.Context
		rctx, r.cancel = workflow.WithCancel(ctx)
		r.f = workflow.ExecuteActivity(withSummary(workflow.WithActivityOptions(rctx, ao), "record video of "+d.Name), a.Record, r.in)
	}
	return recs
}

// stopVideo stops the recordings and stores them, whether the task
// succeeded, failed or was cancelled (a disconnected context: a
// cancelled run still keeps its video).
func stopVideo(ctx workflow.Context, o Options, recs []*recording) []Video {
	if len(recs) == 0 {
		return nil
	}
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	for _, r := range recs {
		if r.cancel != nil {
			r.cancel()
		}
	}
	collects := make([]workflow.Future, len(recs))
	for i, r := range recs {
		if r.f == nil {
			continue
		}
		if err := r.f.Get(dctx, nil); err != nil && !temporal.IsCanceledError(err) {
			r.note = videoNote(err, r.device, o)
		}
		now := workflow.Now(dctx)
		ao := deviceOptions(o, r.device, now.Add(5*time.Minute), now)
		ao.StartToCloseTimeout = 2 * time.Minute
		ao.RetryPolicy.MaximumAttempts = 3
		collects[i] = workflow.ExecuteActivity(withSummary(workflow.WithActivityOptions(dctx, ao), "store video of "+r.device), a.Video, r.in)
	}
	out := make([]Video, len(recs))
	for i, r := range recs {
		out[i] = Video{Device: r.device, Note: r.note}
		if collects[i] == nil {
			continue
		}
		var vr activities.VideoResult
		if err := collects[i].Get(dctx, &vr); err != nil {
			_, msg := reasonFor(err, r.device, o)
			out[i].Note = strings.TrimPrefix(out[i].Note+"; ", "; ") + "not stored: " + msg
			continue
		}
		out[i].Segments = vr.Segments
		if len(vr.Segments) == 0 && out[i].Note == "" {
			out[i].Note = "no frame was recorded"
		}
	}
	return out
}

// videoNote says why a recording ended before the task did.
func videoNote(err error, device string, o Options) string {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() == activities.ErrTypeNoVideo {
		return "not recorded: " + appErr.Message()
	}
	_, msg := reasonFor(err, device, o)
	return "the recording stopped early: " + msg
}
