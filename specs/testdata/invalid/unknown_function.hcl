task "t" {
  subtask "a" {
    instruction = "today is ${timestamp()} ${uper("x")}"
  }
}
