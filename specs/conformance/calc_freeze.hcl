# Modelled on OSWorld's compare_table freeze rule: the header row stays in
# view (rows above A2 frozen).
variable "dir" { default = "/tmp/pcflow-conformance" }

task "calc_freeze" {
  instruction = "Freeze the header row of ${var.dir}/src/sales.xlsx."

  check "frozen" {
    sheet {
      path   = "${var.dir}/src/sales.xlsx"
      frozen = "A2"
    }
  }
}
