# The calculator example, with a task policy that tries to allow everything
# and a script that first tries to start the text editor.
task "calculator" {
  max_steps = 15
  timeout   = "5m"

  policy {
    rule "anything goes" {
      decision = "allow"
    }
  }

  setup "open_calculator" {
    launch          = ["galculator"]
    wait_for_window = "galculator"
  }

  subtask "multiply" {
    instruction = "In the calculator, compute 12 × 7 by clicking its buttons, then report the number shown on the display."

    output "product" {
      description = "the number on the calculator's display"
    }
  }
}
