task "capture" {
  instruction = "Fill in the totals."

  check "a" {
    expect = check.nope.value == "1"
  }
  check "b" {
    expect = check.c.text == "1"
  }
  check "c" {
    expect = check.a.value == "1"
  }
  check "d" {
    cell {
      path = "/tmp/x.csv"
      cell = "A1"
    }
  }
  check "e" {
    expect = check.f.value == "x"
  }
  check "f" {
    directory {
      path = "/tmp"
    }
  }
}
