# A grounder places targets the Decision agent names by description; the
# Decision and Reflection agents each have a cascade: the small profile
# answers until the agent loop's monitor fires, then the large one.
task "cascaded" {
  profiles {
    decision   = { small = "qwen2.5-vl", large = "openai-tools" }
    reflection = { small = "qwen2.5-vl", large = "qwen3-vl" }
    grounder   = "uitars-1.5"
  }

  subtask "save" {
    instruction = "Press Save."
  }
}
