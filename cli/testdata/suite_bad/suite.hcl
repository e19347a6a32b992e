# A suite one of whose tasks is invalid: pcflow validate names it.
suite "bad" {
  task "good" {
    file = "../../../specs/examples/calculator.hcl"
  }
  task "broken" {
    file = "../../../specs/testdata/invalid/unknown_subtask.hcl"
  }
}
