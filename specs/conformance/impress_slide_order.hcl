# Modelled on OSWorld's compare_pptx_files with examine_number_of_slides and
# examine_text: the deck has as many slides as the reference, in its order,
# and a slide holds the reference's text.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "impress_slide_order" {
  instruction = "In ${var.dir}/deck.pptx, move the Results slide before Next steps, delete the Appendix slide and make its first bullet \"North grew 12%\"."

  check "order" {
    presentation {
      path   = "${var.dir}/deck.pptx"
      slides = 3
      titles = ["Quarterly review", "Results", "Next steps"]
    }
  }
  check "bullet" {
    presentation {
      path     = "${var.dir}/deck.pptx"
      slide    = 2
      contains = "North grew 12%"
    }
  }
}
