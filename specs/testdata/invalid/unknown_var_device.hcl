variable "name" {
  default = "x"
}
task "t" {
  device "a" {}
  device "b" {}
  subtask "s" {
    device      = device.c
    instruction = "hi ${var.nme}"
  }
}
