include = ["../include/office.hcl"]

task "report" {
  setup "open" {
    launch          = ["localc", "${var.doc_dir}/report.ods"]
    wait_for_window = "report"
  }

  subtask "fill" {
    instruction = "Type 42 into B2 and save."
  }
}
