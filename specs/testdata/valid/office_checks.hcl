# Office checks: cells with numbers, formulas and formatting; sheets;
# documents; negations.
variable "dir" { default = "/tmp/pcflow-office" }

task "office" {
  instruction = "Fill in the report."

  check "total" {
    cell {
      path      = "${var.dir}/sales.xlsx"
      sheet     = "Sales"
      cell      = "d3"
      approx    = 1000.5
      tolerance = 0.01
      formula   = "=SUM(B3:C3)"
    }
  }
  check "header" {
    cell {
      path          = "${var.dir}/sales.ods"
      cell          = "A1"
      equals        = "Region"
      bold          = true
      fill          = "yellow"
      font          = "Liberation Sans"
      font_size     = 12
      number_format = "General"
    }
  }
  check "range" {
    sheet {
      path      = "${var.dir}/sales.xlsx"
      range     = "A2:B3"
      equals    = [["North", 1250], ["South", 700.5]]
      tolerance = 0.001
    }
  }
  check "book" {
    sheet {
      path               = "${var.dir}/sales.xlsx"
      sheets             = ["Sales", "Notes"]
      frozen             = "A2"
      filter             = "A1:D4"
      chart_type         = "bar"
      chart_title        = "Totals by region"
      chart_series       = ["Sales!$D$2:$D$4"]
      conditional_format = "D2:D4"
    }
  }
  check "report" {
    document {
      path          = "${var.dir}/report.docx"
      headings      = ["Results"]
      heading_level = 2
      table_equals  = [["Region", "Level"], ["North", "high"]]
      text          = "strong"
      bold          = true
      vert_align    = "baseline"
      orientation   = "landscape"
      margin_left   = 1.5
    }
  }
  check "intro" {
    document {
      path         = "${var.dir}/report.odt"
      paragraph    = 2
      contains     = "strong"
      not_contains = "weak"
    }
  }
  check "log" {
    file {
      path         = "${var.dir}/log.txt"
      not_contains = "ERROR"
    }
  }
  check "listing" {
    command {
      argv                = ["ls", var.dir]
      stdout_equals       = "report.docx"
      stdout_not_contains = "tmp"
    }
  }
  check "copied" {
    clipboard { matches = "^[0-9]+$" }
  }
}
