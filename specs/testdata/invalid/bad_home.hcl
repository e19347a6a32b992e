task "bad_home" {
  instruction = "Look."

  device "desktop" {
    home = "home/user"
    user = "User Name"
  }
  device "other" {
    user = "user"
  }
}
