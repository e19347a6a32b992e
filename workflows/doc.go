// Package workflows holds pcflow's Temporal workflows: InstructionWorkflow
// (the Manager level: setup, decomposition, the subtask DAG, task checks)
// and SubtaskWorkflow (the Decide → Act → Reflect → Progress loop on one
// device, then the subtask's checks).
//
// A person in the loop: a subtask takes the ControlSignal (pause, resume,
// takeover, release) and the ApproveUpdate and AnswerUpdate (control.go);
// it waits for them with workflow.Await at step boundaries, between Decide
// and Act (a policy's confirm, a provider's safety checks) and after an
// ask_human, so the waiting survives any restart; the time waited moves
// the subtask's and the task's deadlines (person.go).
//
// Determinism: workflow code does no I/O and reads time, randomness and
// concurrency only through the workflow package; maps are iterated in
// sorted order. A change that alters the command sequence must keep old
// histories replaying (workflow.GetVersion); the replay test over
// testdata/*.json guards this.
package workflows
