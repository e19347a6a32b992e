# OSWorld-style tasks in sequence on one device: a terminal, git, an office
# sheet, and a task that must find none of their traces.
suite "os" {
  task "terminal_mkdir" { file = "terminal_mkdir.hcl" }
  task "git_identity" { file = "git_identity.hcl" }
  # The smoke suite's sheet task: LibreOffice fills and saves a sheet.
  task "office_total" { file = "../../../specs/suites/smoke/sheet_total.hcl" }
  task "clean_start" { file = "clean_start.hcl" }
}
