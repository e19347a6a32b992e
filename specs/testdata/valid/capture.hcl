# Checks capture the values they read; an expect compares them.
task "capture" {
  instruction = "Fill in the totals."

  check "product" {
    expect = abs(tonumber(check.total.value) - tonumber(check.price.value) * tonumber(check.qty.value)) < 0.001
  }
  check "price" {
    cell {
      path = "/tmp/order.xlsx"
      cell = "B2"
    }
  }
  check "qty" {
    cell {
      path = "/tmp/order.xlsx"
      cell = "C2"
    }
  }
  check "total" {
    command {
      argv = ["cat", "/tmp/total.txt"]
    }
  }
}
