# video = true in a task with a sensitive variable: a video would show the
# password the agent types.
variable "password" {
  default   = "hunter2hunter2"
  sensitive = true
}

task "login" {
  video = true

  subtask "sign_in" {
    instruction = "Sign in with the password ${var.password}."
  }
}
