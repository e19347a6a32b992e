task "t" {
  subtask "a" {
    instruction = "x"
    check "nothing" {
    }
    check "two" {
      file {
        path = "/tmp/x"
      }
      expect = true
    }
    check "conflict" {
      file {
        path     = "/tmp/x"
        exists   = false
        contains = "y"
      }
    }
  }
}
