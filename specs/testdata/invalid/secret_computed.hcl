variable "pw" {
  default   = "abc"
  sensitive = true
}
task "t" {
  subtask "a" {
    instruction = "type ${upper(var.pw)}"
    check "c" {
      expect = var.pw == "abc" ? true : false
    }
  }
}
