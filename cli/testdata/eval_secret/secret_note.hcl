# A suite task with a sensitive variable: its value reaches only the
# device (typed by placeholder, read by a check through the environment),
# never the suite's history, results or report.
variable "token" {
  sensitive = true
}

task "secret_note" {
  max_steps = 10
  timeout   = "3m"

  setup "editor" {
    command         = ["mkdir", "-p", "/tmp/pcflow-task"]
    launch          = ["mousepad"]
    wait_for_window = "Mousepad"
  }

  subtask "type_token" {
    instruction = "Type the token ${var.token} into the editor and save the file as /tmp/pcflow-task/token.txt."
  }

  check "saved" {
    command {
      argv      = ["sh", "-c", "printenv PCFLOW_SECRET_token | grep -qFf - /tmp/pcflow-task/token.txt"]
      exit_code = 0
    }
  }

  # The worker keeps the value to itself: what it starts does not inherit it.
  check "not_inherited" {
    command {
      argv      = ["sh", "-c", "! env | grep -q '^PCFLOW_VAR_'"]
      exit_code = 0
    }
  }
}
