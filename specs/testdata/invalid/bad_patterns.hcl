task "t" {
  subtask "read" {
    instruction = "Read the total."
    output "total" {}
  }
  subtask "use" {
    instruction = "Type ${regex("(", subtask.read.output.total)}."
    check "shape" {
      expect = regexmatch("[", subtask.read.output.total)
    }
    check "cmd" {
      command {
        argv           = ["cat", "/tmp/total"]
        stdout_matches = "a{2,1}"
      }
    }
    check "title" {
      window_title {
        matches = "*total"
      }
    }
  }
}
