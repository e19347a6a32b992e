variable "token" {
  sensitive = true
  default   = "s3cr3t"
}

task "shopping" {
  instruction = "Write the shopping list."

  user {
    persona  = ""
    knows    = var.token
    approves = ["send_mail", "no_delete", "missing"]
  }
  user {
    persona = "Someone else"
  }

  policy {
    rule "send_mail" {
      kinds    = ["click"]
      decision = "confirm"
    }
    rule "no_delete" {
      kinds    = ["hotkey"]
      decision = "deny"
    }
  }

  check "no_rubric" {
    judge {
      files = ["/tmp/list.txt"]
    }
  }
  check "empty" {
    judge {
      rubric = "  "
    }
  }
  check "secret" {
    judge {
      rubric = "The screen shows ${var.token}."
    }
  }
  check "nothing" {
    judge {
      rubric  = "The list is right."
      devices = []
    }
  }
  check "unknown_device" {
    judge {
      rubric  = "The list is right."
      devices = [device.phone, device.desktop, device.desktop]
    }
  }
  check "threshold_alone" {
    judge {
      rubric    = "The list is right."
      threshold = 0.5
    }
  }
  check "bad_threshold" {
    judge {
      rubric    = "The list is right."
      score     = true
      threshold = 2
    }
  }
  check "secret_path" {
    judge {
      rubric = "The list is right."
      files  = ["/tmp/${var.token}.txt"]
    }
  }
}
