# OSWorld-style OS tasks in sequence on one device: a terminal, git, and a
# task that must find neither's traces.
suite "os" {
  task "terminal_mkdir" { file = "terminal_mkdir.hcl" }
  task "git_identity" { file = "git_identity.hcl" }
  task "clean_start" { file = "clean_start.hcl" }
}
