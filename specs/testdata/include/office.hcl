# Shared by the office tasks: a LibreOffice profile without first-start
# dialogs, and a check every office task makes.
variable "doc_dir" {
  default = "/tmp/pcflow-office"
}

setup "office_profile" {
  commands = [
    ["mkdir", "-p", "${var.doc_dir}"],
    ["sh", "-c", "echo profile-ready > ${var.doc_dir}/.profile"],
  ]
}

check "no_lock_file" {
  file {
    path   = "${var.doc_dir}/.~lock.report.ods#"
    exists = false
  }
}
