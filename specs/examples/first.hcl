# A first task: multiply two numbers with the desktop calculator.
task "first" {
  max_steps = 15

  setup "open_calculator" {
    launch          = ["galculator"]
    wait_for_window = "galculator"
  }

  subtask "multiply" {
    instruction = "In the calculator, compute 12 × 7 by clicking its buttons, then report the number shown on the display."
    output "product" {}
    check "shown" {
      screen_text { contains = "84" }
    }
  }

  check "correct" {
    expect = subtask.multiply.output.product == "84"
  }
}
