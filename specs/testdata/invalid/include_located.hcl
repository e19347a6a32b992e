include = ["../include/broken.hcl"]

task "t" {
  subtask "a" {
    instruction = "x"
  }
}
