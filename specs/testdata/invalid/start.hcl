task "start" {
  start {
    retries = 9
    check "e" {
      expect = true
    }
  }
  start {
  }
  subtask "write" {
    instruction = "Type hello."
  }
}
