# A judge and a simulated user (cli/judge_e2e_test.go): Sam, played by a
# model, tells the agent the number to multiply 12 by; a model judges the
# calculator's final screen against the rubric.
variable "number" {
  default = "7"
}

task "judged" {
  max_steps = 20
  timeout   = "5m"

  setup "calculator" {
    launch          = ["galculator"]
    wait_for_window = "galculator"
  }

  user {
    persona = "Sam, who needs a product for an invoice."
    knows   = "The number to multiply 12 by is ${var.number}."
    style   = "Answers with the number alone."
  }

  subtask "multiply" {
    instruction = "Ask Sam which number to multiply 12 by, then compute it."
    output "product" {}
  }

  check "display" {
    judge {
      rubric = "The calculator's display shows 84, the product of 12 and 7, and nothing else was computed after it."
    }
  }
}
