# Modelled on OSWorld's docx heading checks: headings with the right text
# and level, in order.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "writer_headings" {
  instruction = "Give ${var.dir}/report.docx the title \"Quarterly report\" and a section heading \"Results\"."

  check "all" {
    document {
      path     = "${var.dir}/report.docx"
      headings = ["Quarterly report", "Results"]
    }
  }
  check "sections" {
    document {
      path          = "${var.dir}/report.odt"
      headings      = ["Results"]
      heading_level = 2
    }
  }
}
