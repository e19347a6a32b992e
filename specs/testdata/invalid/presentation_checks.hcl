task "presentation" {
  instruction = "Finish the deck."

  check "format" {
    presentation {
      path   = "/tmp/deck.ppt"
      slides = 3
    }
  }
  check "values" {
    presentation {
      path         = "/tmp/deck.pptx"
      slides       = -1
      orientation  = "landscap"
      background   = "bluish"
      slide_width  = 0
      slide_height = "tall"
      layout       = "title and content"
    }
  }
  check "notes_alone" {
    presentation {
      path  = "/tmp/deck.odp"
      notes = "Thank you"
    }
  }
  check "slide_alone" {
    presentation {
      path  = "/tmp/deck.odp"
      slide = 0
    }
  }
  check "empty" {
    presentation {
      path = "/tmp/deck.odp"
    }
  }
  check "both" {
    presentation {
      path     = "/tmp/deck.odp"
      slide    = 1
      equals   = "Title"
      contains = "Ti"
    }
  }
  check "gold_odp" {
    presentation {
      path    = "/tmp/deck.odp"
      same_as = "/tmp/gold.odp"
    }
  }
  check "ignore_alone" {
    presentation {
      path   = "/tmp/deck.pptx"
      slides = 3
      ignore = ["positions"]
    }
  }
  check "ignore_typo" {
    presentation {
      path    = "/tmp/deck.pptx"
      same_as = "/tmp/gold.pptx"
      ignore  = ["position"]
    }
  }
}
