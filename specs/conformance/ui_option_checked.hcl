# Modelled on Windows Agent Arena's and OSWorld's accessibility-tree checks:
# an option's check box is checked, and the dialog's OK button enabled.
task "ui_option_checked" {
  instruction = "In the Format Cells dialog, turn on \"Wrap text automatically\"."

  check "wrapped" {
    element {
      role          = "check box"
      name_contains = "Wrap text"
      states        = ["checked"]
    }
  }
  check "ok_enabled" {
    element {
      role   = "push button"
      name   = "OK"
      states = ["enabled"]
    }
  }
}
