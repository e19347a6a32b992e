task "t" {
  subtask "a" {
    max_steps = 3
  }
}
