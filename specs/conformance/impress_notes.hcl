# Modelled on OSWorld's compare_pptx_files with examine_note: a slide's
# speaker notes, compared without surrounding space.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "impress_notes" {
  instruction = "Add the speaker note \"Welcome everyone.\" to the first slide of ${var.dir}/deck.odp."

  check "notes" {
    presentation {
      path  = "${var.dir}/deck.odp"
      slide = 1
      notes = "Welcome everyone."
    }
  }
}
