task "t" {
  policy {
    rule "anything goes" {
      decision = "allow"
    }
  }
  subtask "a" {
    instruction = "x"
  }
}
