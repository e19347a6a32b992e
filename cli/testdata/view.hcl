# The live view end to end (cli/view_e2e_test.go): a person watches
# galculator through the view page, pauses the agent, takes the device
# over, clicks a button through the page and hands it back.
task "view" {
  max_steps = 30
  timeout   = "5m"

  setup "calculator" {
    launch          = ["galculator"]
    wait_for_window = "galculator"
  }

  subtask "multiply" {
    instruction = "Compute 12 × 7."
    output "product" {}
    check "shown" {
      screen_text {
        contains = subtask.multiply.output.product
      }
    }
  }
}
