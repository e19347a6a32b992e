# The home folder and user a benchmark's machine has (OSWorld: /home/user,
# user "user"): a sandbox gives the device that folder as $HOME.
task "home_user" {
  instruction = "Set git's user name."

  device "desktop" {
    home = "/home/user"
    user = "user"
  }

  setup "git" {
    command = ["git", "config", "--global", "user.name", "X"]
  }

  check "gitconfig" {
    file {
      path     = "/home/user/.gitconfig"
      contains = "name = X"
    }
  }
}
