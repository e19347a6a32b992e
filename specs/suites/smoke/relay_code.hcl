# Two devices (CRAB style): a code shown on one computer is typed on the
# other. The suite leases two devices for it.
task "relay_code" {
  max_steps = 15
  timeout   = "5m"

  device "alice" {
    description = "the computer that shows the code"
  }
  device "bob" {
    description = "the computer that needs it"
  }

  setup "show_code" {
    device = device.alice
    write_file {
      path    = "/tmp/pcflow-task/code.txt"
      content = "Access code: 4711-ZULU\n"
    }
    launch          = ["mousepad", "/tmp/pcflow-task/code.txt"]
    wait_for_window = "code.txt"
  }

  setup "open_editor" {
    device          = device.bob
    command         = ["mkdir", "-p", "/tmp/pcflow-task"]
    launch          = ["mousepad"]
    wait_for_window = "Mousepad"
  }

  subtask "read_code" {
    device      = device.alice
    instruction = "Read the access code shown in the open text file."

    output "code" {
      description = "the access code, for example 1234-ABCD"
    }
  }

  subtask "enter_code" {
    device      = device.bob
    instruction = "Type ${subtask.read_code.output.code} into the editor and save the file as /tmp/pcflow-task/received.txt."

    check "saved" {
      file {
        path     = "/tmp/pcflow-task/received.txt"
        contains = subtask.read_code.output.code
      }
    }
  }
}
