task "t" {
  device "../../../../tmp/x" {}
  device "ok" {}

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
