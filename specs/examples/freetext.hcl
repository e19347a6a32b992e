# One free-text instruction: the Manager agent decomposes it at run time.
task "note_the_product" {
  instruction = "Use the calculator to compute 6 × 7, then write the result into a new text file and save it as /tmp/pcflow-free/result.txt."
  max_steps   = 20
  timeout     = "15m"

  setup "folder" {
    command = ["mkdir", "-p", "/tmp/pcflow-free"]
  }

  check "saved" {
    file {
      path     = "/tmp/pcflow-free/result.txt"
      contains = "42"
    }
  }
}
