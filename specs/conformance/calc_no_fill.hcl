# Modelled on OSWorld's check_cell rule on fill_type/fgcolor: the figures
# carry no background fill.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "calc_no_fill" {
  instruction = "Remove the background colour of the figures in ${var.dir}/sales.xlsx."

  check "no_fill" {
    cell {
      path = "${var.dir}/sales.xlsx"
      cell = "B2"
      fill = "none"
    }
  }
}
