# Modelled on OSWorld's check_include_exclude and exact_match over a
# command's output: the log is free of errors, and the folder lists exactly
# one archive.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "os_clean_log" {
  instruction = "Remove the error lines from ${var.dir}/app.log and archive the logs as ${var.dir}/archive/logs.tar."

  check "no_errors" {
    file {
      path         = "${var.dir}/app.log"
      contains     = "started"
      not_contains = "ERROR"
    }
  }
  check "archive" {
    command {
      argv                = ["ls", "${var.dir}/archive"]
      stdout_equals       = "logs.tar"
      stdout_not_contains = ".log"
    }
  }
}
