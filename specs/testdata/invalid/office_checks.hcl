task "office" {
  instruction = "Fill in the report."

  check "format" {
    cell {
      path   = "/tmp/sales.numbers"
      cell   = "A1"
      equals = "x"
    }
  }
  check "number" {
    cell {
      path         = "/tmp/sales.xlsx"
      cell         = "A1"
      tolerance    = 0.1
      less_than    = 1
      greater_than = 2
      fill         = "reddish"
    }
  }
  check "chart" {
    sheet {
      path       = "/tmp/sales.ods"
      chart_type = "bars"
      frozen     = "row 2"
    }
  }
  check "gold" {
    sheet {
      path   = "/tmp/sales.ods"
      gold   = "/nonexistent/gold.xlsx"
      equals = [["a"]]
    }
  }
  check "empty" {
    sheet {
      path = "/tmp/sales.ods"
    }
  }
  check "doc" {
    document {
      path       = "/tmp/report.doc"
      bold       = true
      vert_align = "up"
      table      = 2
    }
  }
}
