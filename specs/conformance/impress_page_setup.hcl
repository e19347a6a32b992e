# Modelled on OSWorld's check_slide_orientation_Portrait (here the other
# way round) and its slide-size tasks: the deck's orientation and its
# 16:9 slide size.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "impress_page_setup" {
  instruction = "Make the slides of ${var.dir}/deck.pptx widescreen 16:9 (28 × 15.75 cm), landscape."

  check "orientation" {
    presentation {
      path        = "${var.dir}/deck.pptx"
      orientation = "landscape"
    }
  }
  check "size" {
    presentation {
      path         = "${var.dir}/deck.odp"
      slide_width  = 28
      slide_height = 15.75
    }
  }
}
