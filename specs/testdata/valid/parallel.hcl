variable "password" {
  default   = "hunter2"
  sensitive = true
}

variable "who" {
  default = "Ada"
}

task "parallel" {
  max_steps   = 12
  timeout     = "10m"
  max_invalid = 2

  device "left" {}
  device "right" {
    description = "second screen"
  }

  setup "files" {
    device = device.left
    write_file {
      path    = "/tmp/secret.txt"
      content = "pw=${var.password}"
    }
  }

  subtask "a" {
    device      = device.left
    instruction = "Read the time for ${upper(var.who)}."
    output "time" {}
  }

  subtask "b" {
    device      = device.right
    instruction = "Log in with password ${var.password}."
    timeout     = "90s"
  }

  subtask "c" {
    device      = device.left
    instruction = "Write ${subtask.a.output.time} in the memo."
    depends_on  = [subtask.b]
    knowledge   = "Ctrl+S saves."

    check "saved" {
      file {
        path    = "/tmp/memo.txt"
        matches = "[0-9]+:[0-9]+"
      }
    }
    check "same" {
      after  = [check.saved]
      expect = trimspace(subtask.a.output.time) != ""
    }
  }

  check "title" {
    device = device.left
    window_title {
      contains = "memo"
    }
  }
}
