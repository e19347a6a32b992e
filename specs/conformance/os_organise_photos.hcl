# Modelled on OSWorld's file-management checks (check_directory / exists
# and not-exists of paths): photos moved into a year folder, the unsorted
# folder gone.
variable "dir" { default = "/tmp/pcflow-conformance" }

task "os_organise_photos" {
  instruction = "Move the photos in ${var.dir}/photos/unsorted into ${var.dir}/photos/2024 and delete the unsorted folder."

  check "sorted" {
    directory {
      path    = "${var.dir}/photos"
      entries = ["2024/", "2024/beach.jpg", "2024/hills.jpg"]
    }
  }
  check "unsorted_gone" {
    directory {
      path   = "${var.dir}/photos/unsorted"
      exists = false
    }
  }
}
