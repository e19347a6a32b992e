# Must fail with agent_failed: the file to edit is not there, and the agent
# says so instead of inventing it.
task "editor_missing" {
  max_steps = 10
  timeout   = "3m"

  setup "open_editor" {
    launch          = ["mousepad"]
    wait_for_window = "Mousepad"
  }

  subtask "fix_typo" {
    instruction = "Open /tmp/pcflow-task/report.txt in the editor and fix the typo 'teh' in it."

    check "fixed" {
      file {
        path     = "/tmp/pcflow-task/report.txt"
        contains = "the"
      }
    }
  }
}
