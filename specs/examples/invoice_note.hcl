# Partial credit, a judge, a simulated user and video in one task (see
# docs/eval.md): Sam, played by a model, says which customer the invoice
# note is for; the agent writes it in Mousepad; three weighted checks score
# it, one of them a judge reading the final screen and the file.
variable "customer" {
  default = "Kim Lee"
}

task "invoice_note" {
  max_steps = 30
  timeout   = "10m"
  video     = true

  setup "editor" {
    launch          = ["mousepad", "/tmp/pcflow-task/note.txt"]
    wait_for_window = "Mousepad"
  }

  user {
    persona = "Sam, an accountant who needs a note for an invoice."
    knows   = "The invoice is for ${var.customer}; it is due on 31 December."
    style   = "Short answers, one fact at a time."
  }

  subtask "write" {
    instruction = "Ask Sam who the invoice is for, then write in the open note: 'Invoice for NAME, due 31 December.' and save it."
  }

  check "saved" {
    file {
      path     = "/tmp/pcflow-task/note.txt"
      contains = var.customer
    }
  }
  check "wording" {
    weight = 2
    similarity {
      path      = "/tmp/pcflow-task/note.txt"
      expected  = "Invoice for ${var.customer}, due 31 December."
      threshold = 0.9
    }
  }
  check "polite" {
    weight = 2
    after  = [check.saved]
    judge {
      rubric    = "The note names ${var.customer} and the due date, in one short sentence fit to send to a customer."
      files     = ["/tmp/pcflow-task/note.txt"]
      score     = true
      threshold = 0.7
    }
  }
}
