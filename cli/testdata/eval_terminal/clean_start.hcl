# Runs after the other three on the same device: it must see none of their work.
task "clean_start" {
  max_steps = 3
  timeout   = "2m"
  subtask "look" {
    instruction = "Look at the desktop, then finish."
  }
  check "no_folder" {
    command {
      argv = ["sh", "-c", "test ! -e \"$HOME/projects\""]
    }
  }
  check "no_git_name" {
    command {
      argv = ["sh", "-c", "git config --global user.name; test $? -eq 1"]
    }
  }
  check "no_sheet" {
    command {
      argv = ["sh", "-c", "test ! -e /tmp/pcflow-task/total.ods && test ! -e /tmp/pcflow-task/lo"]
    }
  }
}
