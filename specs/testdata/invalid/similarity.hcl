task "letter" {
  instruction = "Write the letter and draw the logo."

  check "zero" {
    weight = 0
    expect = true
  }
  check "negative" {
    weight = -2
    file {
      path = "/tmp/a.txt"
    }
  }
  check "word" {
    weight = "heavy"
    file {
      path = "/tmp/a.txt"
    }
  }
  check "huge" {
    weight = 1e9
    file {
      path = "/tmp/a.txt"
    }
  }
  check "strict" {
    similarity {
      path      = "/tmp/a.txt"
      expected  = "hello"
      threshold = 1.5
    }
  }
  check "nothing" {
    similarity {
      path = "/tmp/a.txt"
    }
  }
  check "both" {
    similarity {
      path     = "/tmp/a.txt"
      expected = "hello"
      same_as  = "/srv/gold/a.txt"
    }
  }
  check "text_of_image" {
    similarity {
      path     = "/tmp/logo.png"
      expected = "a logo"
    }
  }
  check "image_of_text" {
    similarity {
      path    = "/tmp/logo.png"
      same_as = "/srv/gold/logo.txt"
    }
  }
  check "text_with_image" {
    similarity {
      path    = "/tmp/a.txt"
      same_as = "/srv/gold/logo.png"
    }
  }
  check "case_of_image" {
    similarity {
      path        = "/tmp/logo.png"
      same_as     = "/srv/gold/logo.png"
      ignore_case = true
    }
  }
  check "credit_word" {
    similarity {
      path      = "/tmp/a.txt"
      expected  = "hello"
      threshold = 0.9
      credit    = "pass-fail"
    }
  }
}
