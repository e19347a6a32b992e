# Modelled on OSWorld's compare_table chart rule, which compares the whole
# set of a sheet's charts keyed by their value and category ranges: the
# sheet holds exactly a column chart of the totals by region and a pie
# chart of Q1.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "calc_charts" {
  instruction = "In ${var.dir}/sales.xlsx, chart the totals by region as columns and Q1 as a pie, and nothing else."

  check "charts" {
    sheet {
      path  = "${var.dir}/sales.xlsx"
      sheet = "Sales"
      chart {
        type       = "bar"
        title      = "Totals by region"
        series     = ["Sales!$D$2:$D$4"]
        categories = "Sales!$A$2:$A$4"
      }
      chart {
        type       = "pie"
        series     = ["Sales!$B$2:$B$4"]
        categories = "Sales!$A$2:$A$4"
      }
    }
  }
}
