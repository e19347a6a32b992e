# The operator's policy: this desktop runs the calculator and nothing else.
policy {
  default = "deny"
  rule "calculator only" {
    app      = "^galculator$"
    decision = "allow"
  }
}
