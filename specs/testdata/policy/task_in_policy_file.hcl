task "t" {
  subtask "a" {
    instruction = "x"
  }
}
