# Modelled on OSWorld's evaluate_presentation_fill_to_rgb_distance: a
# slide's solid background, its own or the master's it inherits.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "impress_background" {
  instruction = "In ${var.dir}/deck.pptx, give the master slide a light blue background (DDEEFF) and the Results slide a yellow one."

  check "master" {
    presentation {
      path       = "${var.dir}/deck.pptx"
      slide      = 1
      background = "DDEEFF"
    }
  }
  check "results" {
    presentation {
      path       = "${var.dir}/deck.pptx"
      slide      = 2
      background = "yellow"
    }
  }
}
