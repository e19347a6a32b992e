task "t" {
  max_steps   = 1e12
  timeout     = "1ns"
  max_tokens  = 1e30
  max_invalid = 2.5

  subtask "a" {
    instruction = "x"
    timeout     = "1000000000h"
    max_steps   = -3
    max_tokens  = "many"
    check "c" {
      command {
        argv      = ["true"]
        exit_code = 256
      }
    }
  }
}
