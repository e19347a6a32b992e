# Modelled on OSWorld's check_cell number-format rules: amounts show two
# decimals with a thousands separator.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "calc_number_format" {
  instruction = "Format the amounts in ${var.dir}/sales.xlsx with two decimals and a thousands separator."

  check "format" {
    cell {
      path          = "${var.dir}/sales.xlsx"
      cell          = "B2"
      number_format = "#,##0.00"
    }
  }
}
