# Partial credit: weights on checks, and similarity checks whose score
# counts for their weight.
task "letter" {
  instruction = "Write the letter and draw the logo."

  subtask "write" {
    instruction = "Type the letter into /tmp/letter.txt."
    output "done" {}
    check "saved" {
      file {
        path = "/tmp/letter.txt"
      }
    }
    check "wording" {
      after  = [check.saved]
      weight = 3
      similarity {
        path        = "/tmp/letter.txt"
        expected    = "Dear Ann, the meeting moves to Friday."
        threshold   = 0.9
        ignore_case = true
      }
    }
  }
  check "document" {
    weight = 0.5
    similarity {
      path    = "/tmp/letter.docx"
      same_as = "/srv/gold/letter.odt"
    }
  }
  check "logo" {
    weight = 2
    similarity {
      path      = "/tmp/logo.png"
      same_as   = "/srv/gold/logo.png"
      threshold = 0.95
    }
  }
  check "mirrored" {
    similarity {
      path      = "/tmp/logo_mirror.png"
      same_as   = "/srv/gold/logo_mirror.png"
      threshold = 0.99
      credit    = "pass_fail"
    }
  }
  check "answer" {
    expect = subtask.write.output.done == "yes"
  }
}
