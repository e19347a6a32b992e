# Write a note in the text editor and save it to a file.
variable "dir" {
  default     = "/tmp/pcflow-editor"
  description = "folder the note is saved in"
}

task "editor" {
  max_steps = 20
  timeout   = "5m"

  device "desktop" {
    platform    = "linux"
    description = "an X11 desktop with mousepad"
  }

  setup "prepare" {
    device  = device.desktop
    command = ["mkdir", "-p", var.dir]
    launch  = ["mousepad"]

    wait_for_window = "Mousepad"
  }

  subtask "write_note" {
    instruction = "Type the text 'Meeting moved to 10:30' into the editor, then save it as ${var.dir}/note.txt."
    knowledge = [
      "Ctrl+S opens the Save As dialog for a new document; type the full path into its Name field and press Enter.",
    ]

    check "saved" {
      file {
        path     = "${var.dir}/note.txt"
        contains = "Meeting moved to 10:30"
      }
    }
  }
}
