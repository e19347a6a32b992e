# Modelled on OSWorld's compare_table sheet_name rule: sheet names and
# order.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "calc_sheet_order" {
  instruction = "Add a sheet called Notes after Sales in ${var.dir}/sales.xlsx and write \"checked\" in A1."

  check "sheets" {
    sheet {
      path   = "${var.dir}/sales.xlsx"
      sheets = ["Sales", "Notes"]
    }
  }
  check "note" {
    after = [check.sheets]
    cell {
      path   = "${var.dir}/sales.xlsx"
      sheet  = "Notes"
      cell   = "A1"
      equals = "checked"
    }
  }
}
