# Modelled on OSWorld's check of subscripts and superscripts in Writer.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "writer_subscript" {
  instruction = "In ${var.dir}/report.odt write the x of NOx as a subscript and the 2 of mc2 as a superscript."

  check "subscript" {
    document {
      path       = "${var.dir}/report.odt"
      text       = "x"
      vert_align = "subscript"
    }
  }
  check "superscript" {
    document {
      path       = "${var.dir}/report.odt"
      text       = "2"
      vert_align = "superscript"
    }
  }
}
