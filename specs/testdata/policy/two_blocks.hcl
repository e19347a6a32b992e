policy {
  default = "deny"
}
policy {
  default = "allow"
}
