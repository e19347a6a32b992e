# Add two numbers with the desktop calculator (must pass).
task "calc_add" {
  max_steps = 12
  timeout   = "3m"

  setup "open_calculator" {
    launch          = ["galculator"]
    wait_for_window = "galculator"
  }

  subtask "add_numbers" {
    instruction = "In the calculator, compute 12 + 30 by clicking its buttons, then report the number shown."

    output "sum" {
      description = "the number on the display"
    }

    check "shown" {
      screen_text {
        contains = "42"
      }
    }
  }

  check "correct" {
    expect = subtask.add_numbers.output.sum == 42
  }
}
