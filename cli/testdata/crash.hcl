# Crash-test task: a first subtask that finishes before any kill, then a
# multiplication that is killed and resumed.
task "crash" {
  max_steps = 30
  timeout   = "10m"

  setup "calculator" {
    launch          = ["galculator"]
    wait_for_window = "galculator"
  }

  subtask "clear" {
    instruction = "Clear the calculator."
    output "display" {}
  }

  subtask "multiply" {
    instruction = "Compute 12 × 7 (the display showed ${subtask.clear.output.display})."
    output "product" {}
    check "shown" {
      screen_text {
        contains = "84"
      }
    }
  }
}
