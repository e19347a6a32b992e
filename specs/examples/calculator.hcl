# Multiply two numbers with the desktop calculator and report the product.
variable "a" {
  default = 12
}
variable "b" {
  default = 7
}

task "calculator" {
  max_steps = 15
  timeout   = "5m"

  setup "open_calculator" {
    launch          = ["galculator"]
    wait_for_window = "galculator"
  }

  subtask "multiply" {
    instruction = "In the calculator, compute ${var.a} × ${var.b} by clicking its buttons, then report the number shown on the display."
    knowledge   = ["galculator's buttons are named by their labels: 1, 2, ×, =; C clears the display."]

    output "product" {
      description = "the number on the calculator's display"
    }

    check "shown" {
      screen_text {
        contains = "${var.a * var.b}"
      }
    }
  }

  check "correct" {
    expect = subtask.multiply.output.product == var.a * var.b
  }
}
