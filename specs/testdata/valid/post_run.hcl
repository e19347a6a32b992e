# Setup with several commands and a longer window wait; post-run steps that
# save, close and wait before the checks.
task "post_run" {
  setup "open" {
    commands        = [["mkdir", "-p", "/tmp/pr"], ["cp", "/etc/hostname", "/tmp/pr/x.csv"]]
    launch          = ["soffice", "--calc", "/tmp/pr/x.csv"]
    wait_for_window = "x.csv"
    wait_timeout    = "3m"
  }
  subtask "edit" {
    instruction = "Put 42 in A1."
  }
  post_run "save" {
    press {
      window = "x.csv"
      keys   = ["ctrl", "s"]
    }
    press {
      keys = ["Return"]
    }
    sleep = "2s"
  }
  post_run "close" {
    close_window = "LibreOffice Calc"
    wait_timeout = "20s"
    command      = ["sync"]
  }
  check "a1" {
    cell {
      path   = "/tmp/pr/x.csv"
      cell   = "A1"
      equals = "42"
    }
  }
}
