task "layout" {
  instruction = "Lay out the report and the sheet."

  check "doc" {
    document {
      path      = "/tmp/report.docx"
      tables    = -1
      alignment = "centre"
    }
  }
  check "para" {
    document {
      path      = "/tmp/report.docx"
      alignment = "left"
    }
  }
  check "charts" {
    sheet {
      path             = "/tmp/sales.xlsx"
      chart_categories = "the regions"
      chart {
        type = "column"
      }
      chart {
      }
    }
  }
  check "hidden" {
    sheet {
      path           = "/tmp/sales.ods"
      hidden_rows    = [0, 2]
      hidden_columns = ["B", "7"]
    }
  }
  check "cf" {
    sheet {
      path                     = "/tmp/sales.xlsx"
      conditional_format_cells = ["B2", "row 3"]
    }
  }
  check "fill" {
    cell {
      path = "/tmp/sales.xlsx"
      cell = "B2"
      fill = "nothing"
    }
  }
  check "terminal" {
    screen_text {
      window   = ""
      contains = "ok"
    }
  }
}
