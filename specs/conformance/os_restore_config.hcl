# Modelled on OSWorld's compare_text_file and directory-tree comparisons:
# a configuration restored from the reference, a project tree copied.
variable "dir" { default = "/tmp/pcflow-conformance" }
variable "ref" { default = "/tmp/pcflow-conformance-ref" }

task "os_restore_config" {
  instruction = "Restore ${var.dir}/app.ini from the backup and copy the project skeleton to ${var.dir}/project."

  check "config" {
    file {
      path      = "${var.dir}/app.ini"
      same_as   = "${var.ref}/app.ini"
      normalize = true
    }
  }
  check "project" {
    directory {
      path    = "${var.dir}/project"
      same_as = "${var.ref}/project"
    }
  }
}
