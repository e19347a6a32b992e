# Modelled on OSWorld's compare_table chart rule (chart type, title and
# series ranges).
variable "dir" { default = "/tmp/pcflow-conformance" }

task "calc_chart" {
  instruction = "Add a column chart of the totals in ${var.dir}/sales.xlsx titled \"Totals by region\"."

  check "chart" {
    sheet {
      path         = "${var.dir}/sales.xlsx"
      sheet        = "Sales"
      chart_type   = "bar"
      chart_title  = "Totals by region"
      chart_series = ["Sales!$D$2:$D$4"]
    }
  }
}
