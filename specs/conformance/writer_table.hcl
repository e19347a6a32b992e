# Modelled on OSWorld's compare_docx_tables: the table's cells.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "writer_table" {
  instruction = "Add a table of regions and levels to ${var.dir}/report.docx."

  check "table" {
    document {
      path         = "${var.dir}/report.docx"
      table        = 1
      table_equals = [["Region", "Level"], ["North", "high"]]
    }
  }
}
