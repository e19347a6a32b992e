# Each agent's model profile: UI-TARS-1.5 decides, a Qwen2.5-VL served
# without a tool parser reflects and keeps the progress.
task "profiled" {
  profiles {
    decision   = "uitars-1.5"
    reflection = "qwen2.5-vl"
    progress   = "qwen2.5-vl"
  }

  subtask "multiply" {
    instruction = "Compute 12 × 7."
    output "product" {}
  }
}
