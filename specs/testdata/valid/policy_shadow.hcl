task "t" {
  policy {
    rule "everything waits" {
      decision = "confirm"
    }
    rule "never reached" {
      kinds    = ["click"]
      decision = "allow"
    }
  }
  subtask "a" {
    instruction = "x"
  }
}
