# Modelled on Windows Agent Arena's Writer page-setup tasks: landscape
# orientation and margins.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "writer_page_setup" {
  instruction = "Set ${var.dir}/report.odt to landscape with 1.5 cm side margins and 1 cm top and bottom."

  check "page" {
    document {
      path          = "${var.dir}/report.odt"
      orientation   = "landscape"
      margin_left   = 1.5
      margin_right  = 1.5
      margin_top    = 1
      margin_bottom = 1
    }
  }
}
