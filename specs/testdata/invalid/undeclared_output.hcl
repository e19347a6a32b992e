task "t" {
  subtask "read" {
    instruction = "read"
    output "time" {}
  }
  subtask "write" {
    instruction = "write ${subtask.read.output.date}"
  }
}
