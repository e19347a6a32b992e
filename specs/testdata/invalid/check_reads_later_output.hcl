task "t" {
  subtask "a" {
    instruction = "read"
    output "v" {}
    check "too_early" {
      expect = subtask.b.output.w == "1"
    }
  }
  subtask "b" {
    instruction = "write ${subtask.a.output.v}"
    output "w" {}
  }
}
