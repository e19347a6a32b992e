task "t" {
  device "office" {}

  policy {
    default = "block"
    rule "a" {
      kinds    = ["click", "tpye", "launch"]
      target   = "^(Send"
      decision = "alow"
    }
    rule "a" {
      decision = "deny"
    }
    rule "b" {
      decision = "confirm"
      timeout  = "0s"
    }
    rule "c" {
      decision = "deny"
      timeout  = "10m"
      tragte   = "Send"
    }
    rule "d" {
      devices  = [device.ofice]
      text     = ""
      decision = "allow"
    }
    rule "" {
      decision = "allow"
    }
    rule "evil\u202etxt.exe" {
      decision = "allow"
    }
    rule "e" {
      sensitive = "yes"
    }
  }
  policy {
    default = "allow"
  }

  subtask "a" {
    instruction = "x"
  }
}
