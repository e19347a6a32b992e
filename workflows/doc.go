// Package workflows holds pcflow's Temporal workflows: InstructionWorkflow
// (the Manager level: setup, decomposition, the subtask DAG, task checks)
// and SubtaskWorkflow (the Decide → Act → Reflect → Progress loop on one
// device, then the subtask's checks).
//
// Determinism: workflow code does no I/O and reads time, randomness and
// concurrency only through the workflow package; maps are iterated in
// sorted order. A change that alters the command sequence must keep old
// histories replaying (workflow.GetVersion); the replay test over
// testdata/*.json guards this.
package workflows
