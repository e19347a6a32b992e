# Writes outside the scratch folder — into /etc, /root and /usr, the
# base file system — and looks at what the device shows of the host: in
# an overlay sandbox neither the host's /tmp, nor the repository, nor a
# process outside the device.
variable "repo" {}

task "write_everywhere" {
  max_steps = 3
  timeout   = "2m"

  setup "litter" {
    command = ["sh", "-c", "echo left > /etc/pcflow-left && echo left > /root/pcflow-left && echo left > /usr/pcflow-left"]
  }

  subtask "look" {
    instruction = "Look at the desktop, then finish."
  }

  check "wrote" {
    command {
      argv      = ["sh", "-c", "test -e /etc/pcflow-left && test -e /root/pcflow-left && test -e /usr/pcflow-left"]
      exit_code = 0
    }
  }
  check "no_host_tmp" {
    command {
      argv      = ["sh", "-c", "test ! -e /tmp/pcflow-host-marker"]
      exit_code = 0
    }
  }
  check "no_repo" {
    command {
      argv      = ["sh", "-c", "test ! -e \"$1/go.mod\"", "sh", "${var.repo}"]
      exit_code = 0
    }
  }
  check "no_host_process" {
    command {
      argv      = ["sh", "-c", "ps -eo args | grep -q '[p]cflow-host-marker'; test $? -eq 1"]
      exit_code = 0
    }
  }
}
