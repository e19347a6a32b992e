task "t" {
  device "../../../../tmp/x" {}
  device "ok" {}
  device "a-very-long-name-that-goes-on-and-on-and-on-well-past-the-sixty-four-character-limit" {}

  setup "a/.." {
    device  = device.ok
    command = ["true"]
  }

  subtask "" {
    device      = device.ok
    instruction = "x"
    output "two words" {}
    check "etc/passwd" {
      file {
        path = "/tmp/y"
      }
    }
  }
}
