task "t" {
  subtask "a" {
    instruction = "one"
  }
  subtask "a" {
    instruction = "two"
  }
}
