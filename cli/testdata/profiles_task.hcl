# The calculator task with the model profiles it was written for: UI-TARS-1.5
# decides (clicks by coordinates in a smart-resized image), Qwen2.5-VL
# served without a tool parser reflects and keeps the progress
# (cli/profiles_e2e_test.go).
task "calculator" {
  max_steps = 15
  timeout   = "5m"

  profiles {
    decision   = "uitars-1.5"
    reflection = "qwen2.5-vl"
    progress   = "qwen2.5-vl"
  }

  setup "open_calculator" {
    launch          = ["galculator"]
    wait_for_window = "galculator"
  }

  subtask "multiply" {
    instruction = "In the calculator, compute 12 × 7 by clicking its buttons, then report the number shown on the display."
    output "product" {}
  }

  check "correct" {
    expect = subtask.multiply.output.product == 84
  }
}
