task "t" {
  subtask "a" {
    instruction = "x"
    output "unused" {}
  }
  subtask "b" {
    instruction = "y"
    depends_on  = [subtask.a]
    max_steps   = 0
  }
}
