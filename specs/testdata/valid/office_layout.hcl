# OSWorld / WAA forms of #23: table count, paragraph alignment, chart
# categories, exactly-these charts, hidden rows and columns, no fill,
# conditional formats evaluated, one terminal window's text.
task "layout" {
  instruction = "Lay out the report and the sheet."

  check "doc" {
    document {
      path      = "/tmp/report.docx"
      tables    = 1
      paragraph = 1
      alignment = "center"
    }
  }
  check "closing" {
    document {
      path      = "/tmp/report.odt"
      text      = "The end."
      alignment = "right"
    }
  }
  check "charts" {
    sheet {
      path             = "/tmp/sales.xlsx"
      sheet            = "Sales"
      chart_categories = "Sales!$A$2:$A$4"
      chart {
        type       = "bar"
        title      = "Totals by region"
        series     = ["Sales!$D$2:$D$4"]
        categories = "Sales.A2:A4"
      }
      chart {
        type = "pie"
      }
    }
  }
  check "hidden" {
    sheet {
      path           = "/tmp/sales.ods"
      hidden_rows    = [3]
      hidden_columns = ["g"]
    }
  }
  check "none_hidden" {
    sheet {
      path        = "/tmp/sales.ods"
      hidden_rows = []
    }
  }
  check "highlighted" {
    sheet {
      path                     = "/tmp/sales.xlsx"
      conditional_format       = "B2:C4"
      conditional_format_cells = ["c2", "$B$3", "C3"]
    }
  }
  check "no_fill" {
    cell {
      path = "/tmp/sales.xlsx"
      cell = "B2"
      fill = "none"
    }
  }
  check "build" {
    screen_text {
      window       = "Terminal"
      contains     = "build SUCCEEDED"
      not_contains = "FAILED"
    }
  }
}
