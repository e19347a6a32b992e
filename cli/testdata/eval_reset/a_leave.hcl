# Leaves a file in the scratch folder and a window open.
task "leave_behind" {
  max_steps = 3
  timeout   = "2m"

  setup "litter" {
    write_file {
      path    = "/tmp/pcflow-task/left.txt"
      content = "left behind\n"
    }
    launch          = ["mousepad", "/tmp/pcflow-task/left.txt"]
    wait_for_window = "left.txt"
  }

  subtask "look_at_litter" {
    instruction = "Check that left.txt is open, then finish."
  }
}
