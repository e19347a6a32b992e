task "t" {
  subtask "read" {
    instruction = "read"
    output "time" {}
  }
  subtask "write" {
    instruction = "write ${subtask.raed.output.time}"
    depends_on  = [subtask.reed]
  }
}
