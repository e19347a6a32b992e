# Modelled on OSWorld's compare_csv: the exported CSV holds the computed
# values.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "calc_csv_export" {
  instruction = "Export the Sales sheet of ${var.dir}/sales.xlsx as ${var.dir}/sales.csv."

  check "range" {
    sheet {
      path   = "${var.dir}/sales.csv"
      range  = "A1:D3"
      equals = [["Region", "Q1", "Q2", "Total"], ["North", 1250, 980, 2230], ["South", 700.5, 300, 1000.5]]
    }
  }
  check "total" {
    cell {
      path         = "${var.dir}/sales.csv"
      cell         = "D3"
      greater_than = 1000
      less_than    = 1001
    }
  }
}
