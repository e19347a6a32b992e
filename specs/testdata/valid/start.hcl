# A start condition: what the screen must show once setup is done, before
# the agent starts; eval starts the task again (devices reset, setup run
# again) up to retries times when it does not.
task "start" {
  setup "open" {
    launch          = ["mousepad"]
    wait_for_window = "Mousepad"
  }
  start {
    retries = 3
    check "editor_in_front" {
      window_title {
        contains = "Mousepad"
      }
    }
    check "no_dialog" {
      after = [check.editor_in_front]
      element {
        role   = "dialog"
        exists = false
      }
    }
  }
  subtask "write" {
    instruction = "Type hello."
  }
}
