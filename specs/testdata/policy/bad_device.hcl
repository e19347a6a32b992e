policy {
  rule "lab" {
    devices  = [device.lab, "office", 3]
    decision = "deny"
  }
}
