# Modelled on OSWorld's is_first_line_centered and compare_docx_tables
# (the number of tables): the title is centred, the closing line is set
# right by its paragraph style, and the report holds one table.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "writer_alignment" {
  instruction = "Centre the title of ${var.dir}/report.docx, set the closing line right, and keep a single table."

  check "title" {
    document {
      path      = "${var.dir}/report.docx"
      paragraph = 1
      alignment = "center"
    }
  }
  check "closing" {
    document {
      path      = "${var.dir}/report.docx"
      text      = "The end."
      alignment = "right"
    }
  }
  check "tables" {
    document {
      path   = "${var.dir}/report.odt"
      tables = 1
    }
  }
}
