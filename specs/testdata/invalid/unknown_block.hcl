task "t" {
  subtsk "a" {
    instruction = "x"
  }
}
