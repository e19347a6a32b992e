# Ends the desktop's window manager through the X server (which every
# program on the display reaches, in any sandbox), then looks at the
# screen: the device must come back to a managed desktop and serve this
# task and the next, never leave the pool.
task "kill_wm" {
  max_steps = 3
  timeout   = "2m"

  setup "kill" {
    command = ["sh", "-c", "xkill -id $(xprop -root _NET_SUPPORTING_WM_CHECK | awk '{print $NF}')"]
  }

  subtask "look_after_kill" {
    instruction = "Look at the desktop, then finish."
  }

  check "wm_back" {
    command {
      argv = ["sh", "-c", "for i in $(seq 50); do w=$(xprop -root _NET_SUPPORTING_WM_CHECK | awk '{print $NF}'); xprop -id \"$w\" _NET_SUPPORTING_WM_CHECK >/dev/null 2>&1 && exit 0; sleep 0.2; done; exit 1"]
    }
  }
}
