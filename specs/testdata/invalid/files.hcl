task "files" {
  instruction = "Organise the photos."

  check "contradiction" {
    directory {
      path    = "/tmp/photos"
      exists  = false
      entries = ["a"]
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
