# Modelled on OSWorld's libreoffice_calc compare_table with a formula rule:
# the total is computed by a formula, and its value is right.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "calc_total_formula" {
  instruction = "In ${var.dir}/sales.xlsx, put the sum of South's Q1 and Q2 in D3 with a SUM formula."

  check "formula" {
    cell {
      path    = "${var.dir}/sales.xlsx"
      sheet   = "Sales"
      cell    = "D3"
      formula = "=SUM(B3:C3)"
    }
  }
  check "value" {
    cell {
      path      = "${var.dir}/sales.xlsx"
      sheet     = "Sales"
      cell      = "D3"
      approx    = 1000.5
      tolerance = 0.001
    }
  }
}
