# Runs after a_leave on the same device: the reset must have removed its
# file and closed its window.
task "find_clean" {
  max_steps = 3
  timeout   = "2m"

  subtask "look_clean" {
    instruction = "Look at the desktop, then finish."

    check "no_file" {
      file {
        path   = "/tmp/pcflow-task/left.txt"
        exists = false
      }
    }
    check "no_window" {
      command {
        argv      = ["sh", "-c", "xprop -root _NET_CLIENT_LIST | grep 0x; test $? -eq 1"]
        exit_code = 0
      }
    }
  }
}
