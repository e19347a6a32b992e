variable "api-key" {
  default   = "k-123"
  sensitive = true
}
task "t" {
  setup "login" {
    command = ["curl", "-H", "Authorization: ${var.api-key}", "https://example.test"]
  }
  subtask "a" {
    instruction = "use ${var.api-key}"
    check "c" {
      command {
        argv = ["grep", "-q", var.api-key, "/tmp/f"]
      }
    }
  }
}
