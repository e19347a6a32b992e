task "cascaded" {
  profiles {
    decision   = { small = "qwen2.5-vl", huge = "openai-tools" }
    reflection = { small = "qwen2.5-vl" }
    progress   = { small = "qwen2.5-vl", large = 7 }
  }

  subtask "save" {
    instruction = "Press Save."
  }
}
