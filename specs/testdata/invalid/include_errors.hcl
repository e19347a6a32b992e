include = ["../include/broken.hcl", "../include/missing.hcl", "../include/broken.hcl"]

task "t" {
  subtask "a" {
    instruction = "x"
  }
}
