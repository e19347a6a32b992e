variable "password" {
  sensitive = true
  default   = "hunter2hunter2"
}

task "mail" {
  device "office" {}
  device "lab" {}

  # Only the mail client and the calculator; Send, Delete and Pay wait for a
  # person; a password is typed only into the browser.
  policy {
    default = "deny"

    rule "never send" {
      kinds    = ["click", "double_click"]
      target   = "^(Send|Delete|Pay)$"
      decision = "confirm"
      timeout  = "10m"
      message  = "sending needs a person"
    }
    rule "secrets only in the browser" {
      sensitive = true
      app       = "^(chromium|firefox)$"
      decision  = "allow"
    }
    rule "no other secrets" {
      sensitive = true
      decision  = "deny"
      message   = "type the password only into the browser's login page"
    }
    rule "no shell on the lab" {
      devices  = [device.lab, "lab"]
      kinds    = "type"
      text     = "rm\\s+-rf"
      window   = "terminal"
      role     = "terminal"
      decision = "deny"
    }
    rule "mail and calculator" {
      app      = "^(thunderbird|galculator)$"
      decision = "allow"
    }
    rule "calculadora ✓ 計算機" {
      window   = "計算機"
      decision = "allow"
    }
  }

  subtask "send" {
    device      = device.office
    instruction = "Log in with ${var.password} and send the report."
  }
}
