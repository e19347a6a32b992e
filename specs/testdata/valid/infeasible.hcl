# An infeasible task: the agent should call fail.
task "photoshop" {
  instruction = "Open report.psd in Photoshop and crop it."
  infeasible  = true
}
