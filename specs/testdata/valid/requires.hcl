# A task that needs programs on its device.
task "needs_calc" {
  instruction = "Add up the column in Calc."
  requires    = ["soffice", "xdotool"]
}
