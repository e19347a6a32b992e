# One hostile task (see hostile.hcl); cli/eval_sandbox_test.go runs it
# under overlay (every attempt fails) and under bind (which says what bind
# does not protect).
suite "hostile" {
  task "hostile" { file = "hostile.hcl" }
}
