# A start that is never right: a window the setup never opens. After the
# first start and one retry it ends as harness_error (start state), scored
# in no rate.
task "never_starts" {
  max_steps = 3
  timeout   = "3m"

  setup "open" {
    launch          = ["mousepad"]
    wait_for_window = "Mousepad"
  }

  start {
    retries = 1
    check "calculator_open" {
      window_title {
        contains = "galculator"
      }
    }
  }

  subtask "glance" {
    instruction = "Look at the calculator, then finish."
  }
}
