task "t" {
  subtask "a" {
    instruction = "x"
    max_step    = 3
  }
}
