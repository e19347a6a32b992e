task "platforms" {
  instruction = "Copy the note from the phone to the laptop."

  device "laptop" {
    platform = "windows"
  }
  device "phone" {
    platform = "android"
  }
  device "mac" {
    platform = "macos"
  }
  device "desktop" {}
}
