# A person in the loop: the policy denies one button and makes "=" wait for
# a person's approval (cli/person_e2e_test.go).
task "person" {
  max_steps = 20
  timeout   = "5m"

  setup "calculator" {
    launch          = ["galculator"]
    wait_for_window = "galculator"
  }

  policy {
    rule "no_nine" {
      kinds    = ["click"]
      target   = "^9$"
      decision = "deny"
      message  = "the number nine is not wanted here"
    }
    rule "confirm_equals" {
      target   = "^=$"
      decision = "confirm"
      message  = "a person checks the input before it is evaluated"
    }
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
