variable "password" {
  sensitive = true
  default   = "hunter2hunter2"
}

task "t" {
  policy {
    rule "hide" {
      text     = var.password
      decision = "deny"
    }
  }
  subtask "a" {
    instruction = "x"
  }
}
