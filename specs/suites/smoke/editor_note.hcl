# Write a note in the text editor and save it (must pass).
task "editor_note" {
  max_steps = 15
  timeout   = "3m"

  setup "open_editor" {
    command         = ["mkdir", "-p", "/tmp/pcflow-task"]
    launch          = ["mousepad"]
    wait_for_window = "Mousepad"
  }

  subtask "write_note" {
    instruction = "Type 'Meeting moved to 10:30' into the editor, then save it as /tmp/pcflow-task/note.txt."

    check "saved" {
      file {
        path     = "/tmp/pcflow-task/note.txt"
        contains = "Meeting moved to 10:30"
      }
    }
  }
}
