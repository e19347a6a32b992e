# Modelled on OSWorld's compare_table rules that relate cells to each other
# (a total equal to price × quantity, within a tolerance): the checks
# capture the cells they read and an expect compares them.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "calc_product_capture" {
  instruction = "In ${var.dir}/sales.xlsx, put Q1 + Q2 of South in D3."

  check "q1" {
    cell {
      path  = "${var.dir}/sales.xlsx"
      sheet = "Sales"
      cell  = "B3"
    }
  }
  check "q2" {
    cell {
      path  = "${var.dir}/sales.xlsx"
      sheet = "Sales"
      cell  = "C3"
    }
  }
  check "total" {
    cell {
      path  = "${var.dir}/sales.xlsx"
      sheet = "Sales"
      cell  = "D3"
    }
  }
  check "total_is_sum" {
    expect = abs(tonumber(check.total.value) - (tonumber(check.q1.value) + tonumber(check.q2.value))) < 0.001 && tonumber(check.total.value) == 1000.5
  }
}
