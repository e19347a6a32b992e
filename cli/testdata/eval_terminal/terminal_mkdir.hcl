# OSWorld os: "Create a folder named projects/alpha in my home directory."
task "terminal_mkdir" {
  max_steps = 6
  timeout   = "3m"
  setup "terminal" {
    launch          = ["xterm", "-T", "Terminal"]
    wait_for_window = "^Terminal$"
  }
  subtask "mkdir" {
    instruction = "In the terminal, create the folder projects/alpha in the home directory."
  }
  check "made" {
    command {
      argv = ["sh", "-c", "test -d \"$HOME/projects/alpha\""]
    }
  }
}
