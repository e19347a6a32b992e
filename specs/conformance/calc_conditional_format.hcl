# Modelled on OSWorld's compare_conditional_formatting: the totals carry a
# conditional format.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "calc_conditional_format" {
  instruction = "Highlight totals above 1000 in ${var.dir}/sales.xlsx in red with a conditional format."

  check "rule" {
    sheet {
      path               = "${var.dir}/sales.xlsx"
      conditional_format = "D2:D4"
    }
  }
}
