task "platform" {
  instruction = "Look."

  device "phone" {
    platform = "ios"
  }
}
