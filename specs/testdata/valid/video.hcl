# A task recorded on video.
task "recorded" {
  video = true

  subtask "s" {
    instruction = "Open the calculator."
  }
}
