task "t" {
  device "a" {}
  device "b" {}
  subtask "s" {
    instruction = "x"
  }
}
