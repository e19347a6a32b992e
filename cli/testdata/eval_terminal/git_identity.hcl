# OSWorld os/vs_code style: "Set my git user name to Ada Lovelace globally."
task "git_identity" {
  max_steps = 6
  timeout   = "3m"
  setup "terminal" {
    launch          = ["xterm", "-T", "Terminal"]
    wait_for_window = "^Terminal$"
  }
  subtask "git" {
    instruction = "In the terminal, set the global git user name to Ada Lovelace."
  }
  check "name" {
    command {
      argv          = ["git", "config", "--global", "user.name"]
      stdout_equals = "Ada Lovelace"
    }
  }
}
