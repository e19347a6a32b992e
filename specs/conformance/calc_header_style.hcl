# Modelled on OSWorld's compare_table cell-style rules (font bold, fill
# colour): the header row is bold, red and on yellow.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "calc_header_style" {
  instruction = "Make the header of ${var.dir}/sales.ods bold, dark red, on a yellow background."

  check "header" {
    cell {
      path      = "${var.dir}/sales.ods"
      cell      = "A1"
      equals    = "Region"
      bold      = true
      color     = "C00000"
      fill      = "yellow"
      font_size = 12
    }
  }
}
