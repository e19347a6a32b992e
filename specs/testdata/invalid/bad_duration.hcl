task "t" {
  timeout = "ten minutes"
  subtask "a" {
    instruction = "x"
    timeout     = "-5s"
  }
}
