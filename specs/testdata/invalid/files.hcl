task "files" {
  instruction = "Organise the photos."

  check "contradiction" {
    directory {
      path    = "/tmp/photos"
      exists  = false
      entries = ["a"]
    }
  }
  check "lines_alone" {
    file {
      path  = "/tmp/a.txt"
      lines = true
    }
  }
  check "lines_and_normalize" {
    file {
      path      = "/tmp/a.txt"
      same_as   = "/tmp/b.txt"
      normalize = true
      lines     = true
    }
  }
  check "normalize_alone" {
    file {
      path      = "/tmp/a.txt"
      normalize = true
    }
  }
  check "nothing" {
    element {
      states = ["ticked"]
    }
  }
}
