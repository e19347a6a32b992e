# Modelled on OSWorld's compare_pdfs (text): the exported PDF holds the
# document's text.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "writer_pdf_export" {
  instruction = "Export ${var.dir}/report.odt as ${var.dir}/report.pdf."

  check "text" {
    document {
      path     = "${var.dir}/report.pdf"
      contains = "Results"
      matches  = "Quarterly\\s+report"
    }
  }
  check "body" {
    document {
      path         = "${var.dir}/report.docx"
      paragraph    = 3
      equals       = "Results"
      not_contains = "Outcome"
    }
  }
}
