# Presentation checks: the number of slides, their titles in order, one
# slide's text and notes, backgrounds, layouts, the slide size; a slide's text read
# for an expect.
variable "dir" { default = "/tmp/pcflow-office" }

task "presentation" {
  instruction = "Finish the quarterly deck."

  check "deck" {
    presentation {
      path         = "${var.dir}/deck.pptx"
      slides       = 3
      titles       = ["Quarterly review", "Results", "Next steps"]
      orientation  = "landscape"
      slide_width  = 28
      slide_height = 15.75
    }
  }
  check "results" {
    presentation {
      path         = "${var.dir}/deck.odp"
      slide        = 2
      contains     = "North grew 12%"
      not_contains = "TODO"
      notes        = "Mention the new office."
      background   = "yellow"
      layout       = "title_content"
    }
  }
  check "anywhere" {
    presentation {
      path    = "${var.dir}/deck.odp"
      matches = "(?m)^Next steps$"
    }
  }
  check "closing" {
    presentation {
      path  = "${var.dir}/deck.pptx"
      slide = 3
    }
  }
  check "as_gold" {
    presentation {
      path    = "${var.dir}/deck.pptx"
      same_as = "${var.dir}/gold.pptx"
      ignore  = ["positions", "bullets"]
    }
  }
  check "has_hire" {
    expect = contains(check.closing.value, "Hire")
  }
}
