# Modelled on OSWorld's font-name, colour and highlighted-words checks.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "writer_font_colour" {
  instruction = "In ${var.dir}/report.docx set \"red\" in Liberation Serif 14 pt, red, highlighted yellow."

  check "span" {
    document {
      path      = "${var.dir}/report.docx"
      text      = "red"
      font      = "Liberation Serif"
      font_size = 14
      color     = "FF0000"
      highlight = "yellow"
    }
  }
}
