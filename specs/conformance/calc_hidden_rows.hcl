# Modelled on OSWorld's compare_table row_props/col_props rules (hidden
# rows and columns): exactly row 3 and column G are hidden.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "calc_hidden_rows" {
  instruction = "Hide row 3 and column G of the Sales sheet in ${var.dir}/sales.ods."

  check "hidden" {
    sheet {
      path           = "${var.dir}/sales.ods"
      sheet          = "Sales"
      hidden_rows    = [3]
      hidden_columns = ["G"]
    }
  }
}
