# A setup that leaves a dialog in front of the editor one time in two (as
# a restore-session prompt does): the first start fails the start check,
# eval resets the device and runs the setup again, and the second start is
# right. The counter file lives outside the reset (eval --sandbox none).
variable "counter" {}

task "flaky_start" {
  max_steps = 3
  timeout   = "3m"

  setup "open" {
    launch          = ["mousepad"]
    wait_for_window = "Mousepad"
  }
  setup "prompt" {
    command = ["sh", "-c", <<-EOT
      n=$(( $(cat '${var.counter}' 2>/dev/null || echo 0) + 1 ))
      echo $n > '${var.counter}'
      [ $((n % 2)) -eq 1 ] || exit 0
      setsid zenity --question --title 'Restore session?' --text 'Restore the previous session?' </dev/null >/dev/null 2>&1 &
      for i in $(seq 100); do
        xprop -id "$(xprop -root _NET_ACTIVE_WINDOW | sed 's/.*# //')" WM_NAME 2>/dev/null | grep -q 'Restore session' && exit 0
        sleep 0.1
      done
      echo 'the dialog never came to the front' >&2; exit 1
    EOT
    ]
  }

  start {
    check "editor_in_front" {
      command {
        argv            = ["sh", "-c", "xprop -id \"$(xprop -root _NET_ACTIVE_WINDOW | sed 's/.*# //')\" WM_NAME"]
        stdout_contains = "Mousepad"
      }
    }
  }

  subtask "look" {
    instruction = "Check that the editor is in front, then finish."
  }
}
