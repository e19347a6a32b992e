# Fill two cells in LibreOffice Calc and save the sheet (must pass).
task "sheet_total" {
  max_steps = 15
  timeout   = "5m"

  setup "calc" {
    write_file {
      path    = "/tmp/pcflow-task/lo/user/registrymodifications.xcu"
      content = <<-XCU
        <?xml version="1.0" encoding="UTF-8"?>
        <oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
        <item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
        <item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="WarnAlienFormat" oor:op="fuse"><value>false</value></prop></item>
        </oor:items>
        XCU
    }
    launch          = ["soffice", "-env:UserInstallation=file:///tmp/pcflow-task/lo", "--norestore", "--calc"]
    wait_for_window = "LibreOffice Calc"
    # A first start makes a new LibreOffice profile: on a loaded machine
    # its splash can stay over a minute (seen in CI under the overlay
    # sandbox). The wait ends as soon as the window shows.
    wait_timeout = "3m"
  }

  subtask "fill_sheet" {
    instruction = "In LibreOffice Calc, type 'Total' in A1 and 2230 in B1, then save the sheet as /tmp/pcflow-task/total.ods."

    check "cell" {
      cell {
        path   = "/tmp/pcflow-task/total.ods"
        cell   = "B1"
        equals = "2230"
      }
    }
  }
}
