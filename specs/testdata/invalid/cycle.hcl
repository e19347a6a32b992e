task "t" {
  subtask "a" {
    instruction = "a ${subtask.c.output.v}"
    output "v" {}
  }
  subtask "b" {
    instruction = "b ${subtask.a.output.v}"
    output "v" {}
  }
  subtask "c" {
    instruction = "c"
    depends_on  = [subtask.b]
    output "v" {}
  }
}
