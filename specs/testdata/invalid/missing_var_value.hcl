variable "token" {
  sensitive = true
}
task "t" {
  max_steps = var.token
  subtask "a" {
    instruction = "use ${var.token}"
  }
}
