# The smoke suite: CI runs it with `pcflow eval specs/suites/smoke --devices 3`.
# calc_misread, editor_missing and browser_stuck must fail (check_failed,
# agent_failed, step_limit); relay_code leases two devices.
suite "smoke" {
  task "calc_add" {
    file = "calc_add.hcl"
    tags = ["galculator"]
  }
  task "calc_misread" {
    file = "calc_misread.hcl"
    tags = ["galculator", "must_fail"]
  }
  task "editor_note" {
    file = "editor_note.hcl"
    tags = ["mousepad"]
  }
  task "editor_missing" {
    file = "editor_missing.hcl"
    tags = ["mousepad", "must_fail"]
  }
  task "sheet_total" {
    file = "sheet_total.hcl"
    tags = ["libreoffice"]
  }
  task "browser_search" {
    file = "browser_search.hcl"
    tags = ["chromium"]
  }
  task "browser_stuck" {
    file = "browser_stuck.hcl"
    tags = ["chromium", "must_fail"]
  }
  task "relay_code" {
    file = "relay_code.hcl"
    tags = ["mousepad", "multi_device"]
  }
}
