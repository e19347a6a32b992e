# PC-Eval style: read two numbers from a text file in the editor, add them
# with the calculator, and save the sum in a new LibreOffice Calc sheet.
variable "dir" {
  default = "/tmp/pcflow-pceval"
}

task "sales_total" {
  max_steps = 25
  timeout   = "20m"

  setup "inputs" {
    command = ["mkdir", "-p", var.dir]
    write_file {
      path    = "${var.dir}/sales.txt"
      content = "Sales report\nMonday: 1250\nTuesday: 980\n"
    }
    launch          = ["mousepad", "${var.dir}/sales.txt"]
    wait_for_window = "sales.txt"
  }

  # OSWorld-style configuration: a LibreOffice profile without first-start
  # dialogs, and Calc open and ready.
  setup "calc" {
    write_file {
      path    = "${var.dir}/lo/user/registrymodifications.xcu"
      content = <<-XCU
        <?xml version="1.0" encoding="UTF-8"?>
        <oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
        <item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
        <item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="WarnAlienFormat" oor:op="fuse"><value>false</value></prop></item>
        </oor:items>
        XCU
    }
    launch          = ["soffice", "-env:UserInstallation=file://${var.dir}/lo", "--norestore", "--calc"]
    wait_for_window = "LibreOffice Calc"
  }

  subtask "read_sales" {
    instruction = "Read the Monday and Tuesday sales figures from sales.txt, which is open in the text editor."

    output "monday" {
      description = "Monday's sales, digits only"
    }
    output "tuesday" {
      description = "Tuesday's sales, digits only"
    }
  }

  subtask "add_up" {
    instruction = "Open the calculator and compute ${subtask.read_sales.output.monday} + ${subtask.read_sales.output.tuesday}. Report the result."
    knowledge   = ["The calculator is galculator; open it with open_app."]

    output "total" {
      description = "the sum shown by the calculator"
    }

    check "arithmetic" {
      expect = tonumber(subtask.add_up.output.total) == tonumber(subtask.read_sales.output.monday) + tonumber(subtask.read_sales.output.tuesday)
    }
  }

  subtask "save_sheet" {
    instruction = "In LibreOffice Calc (already open), type 'Total' in cell A1 and ${subtask.add_up.output.total} in cell B1, and save the sheet as ${var.dir}/total.ods."
    knowledge = [
      "Click a cell, type its value and press Enter.",
      "Ctrl+Shift+S opens Save As; keep the ODF format when asked.",
    ]

    check "cell" {
      cell {
        path   = "${var.dir}/total.ods"
        cell   = "B1"
        equals = subtask.add_up.output.total
      }
    }
  }

  check "label" {
    cell {
      path   = "${var.dir}/total.ods"
      cell   = "A1"
      equals = "Total"
    }
  }
}
