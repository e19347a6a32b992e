# Hostile tasks (see each file); cli/eval_sandbox_test.go runs them under
# overlay (every attempt fails, the device serves on) and under bind
# (which says what bind does not protect).
suite "hostile" {
  task "kill_wm" { file = "kill_wm.hcl" }
  task "hostile" { file = "hostile.hcl" }
}
