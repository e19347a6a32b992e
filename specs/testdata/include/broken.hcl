setup "shared" {
  command = ["true"]
  device  = device.laptop
}

check "../escape" {
  expect = true
}
