# Runs after a_write on the same device: what it wrote into /etc, /root
# and /usr went with its sandbox's overlay.
variable "repo" {}
task "find_base" {
  max_steps = 3
  timeout   = "2m"

  subtask "look_clean" {
    instruction = "Look at the desktop, then finish."
  }

  check "etc_clean" {
    command {
      argv      = ["sh", "-c", "test ! -e /etc/pcflow-left && test ! -e /root/pcflow-left && test ! -e /usr/pcflow-left"]
      exit_code = 0
    }
  }
}
