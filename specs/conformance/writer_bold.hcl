# Modelled on OSWorld's docx checks of character formatting (bold and
# italic+underline words).
variable "dir" { default = "/tmp/pcflow-conformance" }

task "writer_bold" {
  instruction = "In ${var.dir}/report.docx make \"strong\" bold and \"steady\" italic and underlined."

  check "bold" {
    document {
      path = "${var.dir}/report.docx"
      text = "strong"
      bold = true
    }
  }
  check "italic" {
    document {
      path      = "${var.dir}/report.docx"
      text      = "steady"
      italic    = true
      underline = true
    }
  }
}
