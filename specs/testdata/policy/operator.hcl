# An operator's default policy: only the calculator, and no payments
# without a person.
policy {
  default = "deny"
  rule "payments" {
    target   = "^pay"
    decision = "confirm"
    message  = "payments need a person"
  }
  rule "calculator only" {
    app      = "^galculator$"
    decision = "allow"
  }
}
