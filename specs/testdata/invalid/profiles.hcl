task "profiled" {
  profiles {
    decision = 15
    planner  = "qwen3-vl"
    manager  = "../../qwen"
  }
  profiles {
    decision = "gemini"
  }

  subtask "multiply" {
    instruction = "Compute 12 × 7."
  }
}
