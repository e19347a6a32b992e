# Modelled on OSWorld's compare_table style rule, which evaluates
# conditional formats on the cells' values: the Q1 and Q2 figures from 300
# to 1000 are highlighted, and no others.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "calc_highlight_cells" {
  instruction = "In ${var.dir}/sales.xlsx, highlight the quarterly figures between 300 and 1000 with a conditional format."

  check "highlighted" {
    sheet {
      path                     = "${var.dir}/sales.xlsx"
      conditional_format       = "B2:C4"
      conditional_format_cells = ["C2", "B3", "C3"]
    }
  }
}
