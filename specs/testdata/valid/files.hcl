# Directory checks and comparison with reference files.
task "files" {
  instruction = "Organise the photos."

  check "sorted" {
    directory {
      path    = "/tmp/photos"
      entries = ["2024/", "2024/beach.jpg"]
    }
  }
  check "tree" {
    directory {
      path    = "/tmp/photos"
      same_as = "/srv/reference/photos"
    }
  }
  check "gone" {
    directory {
      path   = "/tmp/photos/unsorted"
      exists = false
    }
  }
  check "config" {
    file {
      path      = "/etc/hostname"
      same_as   = "/etc/hostname"
      normalize = true
    }
  }
  check "table" {
    file {
      path    = "/etc/hostname"
      same_as = "/etc/hostname"
      lines   = true
    }
  }
  check "wrapped" {
    element {
      role          = "check box"
      name_contains = "Wrap text"
      states        = ["checked"]
    }
  }
}
