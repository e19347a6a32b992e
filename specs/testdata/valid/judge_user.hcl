# A model judges the end state against a rubric (judge checks), and a
# simulated user answers the agent's questions and the approvals of the
# rules it is allowed to decide.
task "shopping" {
  instruction = "Write the shopping list Dana asks for."

  device "desk" {}
  device "phone" {
    platform = "linux"
  }

  user {
    persona  = "Dana, who asked for the list."
    knows    = "The list is milk, eggs and bread. The file goes to /tmp/list.txt."
    wants    = "The list saved, one item per line; sending it by mail is fine."
    style    = "Short answers."
    approves = ["send_mail"]
  }

  policy {
    rule "send_mail" {
      kinds    = ["click"]
      target   = "^Send$"
      decision = "confirm"
    }
    rule "no_delete" {
      kinds    = ["hotkey"]
      text     = "shift\\+delete"
      decision = "deny"
    }
  }

  profiles {
    judge = "qwen2.5-vl"
    user  = "openai-tools"
  }

  subtask "write" {
    device      = device.desk
    instruction = "Ask Dana what goes on the list, then type it into /tmp/list.txt and save."
    output "items" {}
    check "looks_right" {
      judge {
        rubric = "The editor shows a list with milk, eggs and bread, one per line, and the file holds the same."
        files  = ["/tmp/list.txt"]
      }
    }
  }

  check "both_screens" {
    device = device.desk
    weight = 2
    judge {
      rubric    = "Both screens show the list; ${subtask.write.output.items} are the items. Score how much of it is right."
      devices   = [device.desk, device.phone]
      score     = true
      threshold = 0.6
    }
  }
  check "file_only" {
    device = device.desk
    judge {
      rubric  = "The file lists three groceries."
      devices = []
      files   = ["/tmp/list.txt", "/tmp/notes.txt"]
    }
  }
}
