# Modelled on OSWorld's compare_table against a gold file: every value of
# the sheet equals the reference workbook's, numbers within a tolerance.
variable "dir" { default = "/tmp/pcflow-conformance" }
variable "gold" { default = "/tmp/pcflow-conformance-gold/sales.ods" }

task "calc_gold" {
  instruction = "Enter the quarterly sales into ${var.dir}/sales.xlsx."

  check "same_as_gold" {
    sheet {
      path      = "${var.dir}/sales.xlsx"
      sheet     = "Sales"
      gold      = var.gold
      tolerance = 0.001
    }
  }
}
