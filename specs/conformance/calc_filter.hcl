# Modelled on OSWorld's compare_table filter rule: an auto filter on the
# data.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "calc_filter" {
  instruction = "Turn on the auto filter for the table in ${var.dir}/sales.ods."

  check "filter" {
    sheet {
      path   = "${var.dir}/sales.ods"
      filter = "A1:D4"
    }
  }
}
