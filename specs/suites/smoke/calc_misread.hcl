# Must fail with check_failed: the agent reports a number the calculator
# does not show (a model misreading the display).
task "calc_misread" {
  max_steps = 12
  timeout   = "3m"

  setup "open_calculator" {
    launch          = ["galculator"]
    wait_for_window = "galculator"
  }

  subtask "multiply_numbers" {
    instruction = "In the calculator, compute 6 × 7 by clicking its buttons, then report the number shown."

    output "product" {
      description = "the number on the display"
    }
  }

  check "correct" {
    expect = subtask.multiply_numbers.output.product == 42
  }
}
