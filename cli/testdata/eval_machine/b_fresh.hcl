# Runs after a_home on the same device: the home folder is there again,
# writable, and empty of what the first task wrote.
task "fresh_home" {
  max_steps = 3
  timeout   = "2m"

  device "desktop" {
    home = "/home/user"
    user = "user"
  }

  subtask "look_again" {
    instruction = "Look at the desktop, then finish."
  }

  check "home_fresh" {
    command {
      argv      = ["sh", "-c", "test \"$HOME\" = /home/user && test ! -e ~/.gitconfig && test ! -e ~/written && touch ~/again"]
      exit_code = 0
    }
  }
}
