# A hostile task (#26): its setup tries to reach what a device must never
# touch — the state folder and the action log (directly, and through
# other processes' open files in /proc), the host's password hashes, the
# repository, the Temporal frontend, the Web UI, the live view's VNC
# server, the window manager's configuration and the bus's activation
# environment — and every check passes only when its attempt failed. It still
# runs its application: a calculator whose buttons the device reads.
variable "repo" {}
variable "state" {}
variable "frontend_port" {}
variable "ui_port" {}

task "hostile" {
  max_steps = 3
  timeout   = "2m"

  setup "attack" {
    # Forged journal lines and artifacts: written wherever the state
    # folder, or a descriptor of it, can be found. A check then looks on
    # the host. Only a state folder of a hostile suite (one with its
    # action logs) is attacked: under bind, which does not stop it, the
    # state folders of other tests running at the same time are in reach
    # too (CI: TestEvalKillAndResume found forged lines in its logs).
    command = ["sh", "-c", <<-EOT
      line='{"phase":"finished","key":"forged"}'
      mkdir -p "$1/actions" "$1/artifacts" 2>/dev/null
      for f in "$1"/actions/*; do echo "$line" >> "$f"; done 2>/dev/null
      echo forged > "$1/artifacts/forged" 2>/dev/null
      for fd in /proc/[0-9]*/fd/* /proc/[0-9]*/cwd /proc/[0-9]*/root; do
        if ls "$fd"/actions/hostile-* >/dev/null 2>&1; then
          for f in "$fd"/actions/*; do echo "$line" >> "$f"; done
          echo forged > "$fd/artifacts/forged"
        fi
      done 2>/dev/null
      true
      EOT
    , "sh", "${var.state}"]
    launch          = ["galculator"]
    wait_for_window = "galculator"
  }

  subtask "look" {
    instruction = "Look at the calculator, then finish."
  }

  check "app_runs" {
    element {
      name = "7"
    }
  }
  check "no_shadow" {
    command {
      argv = ["sh", "-c", "! grep -q '^root:' /etc/shadow"]
    }
  }
  check "no_repo" {
    command {
      argv = ["sh", "-c", "test ! -e \"$1/go.mod\"", "sh", "${var.repo}"]
    }
  }
  check "no_state" {
    command {
      argv = ["sh", "-c", "test ! -e \"$1/pcflow.log\"", "sh", "${var.state}"]
    }
  }
  check "no_frontend" {
    command {
      argv = ["bash", "-c", "! timeout 5 bash -c \"exec 3<>/dev/tcp/127.0.0.1/$1\" 2>/dev/null", "bash", "${var.frontend_port}"]
    }
  }
  check "no_ui" {
    command {
      argv = ["bash", "-c", "! timeout 5 bash -c \"exec 3<>/dev/tcp/127.0.0.1/$1\" 2>/dev/null", "bash", "${var.ui_port}"]
    }
  }
  # The desktop's window manager and bus run on the host: their
  # configuration is out of sight, and the bus will not take an
  # environment for the services it starts there.
  check "no_wm_config" {
    command {
      argv = ["sh", "-c", "! ls -d /tmp/pcflow-wm-* >/dev/null 2>&1"]
    }
  }
  check "no_bus_env" {
    command {
      # Passes only on the bus's refusal (not when dbus-send is missing).
      argv = ["sh", "-c", "dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.UpdateActivationEnvironment dict:string:string:LD_PRELOAD,/tmp/evil.so 2>&1 | grep -q AccessDenied"]
    }
  }
  # The live view's VNC server: its port from its command line, then a
  # connection, its descriptors and its environment.
  check "no_view" {
    command {
      argv = ["bash", "-c", <<-EOT
        for p in /proc/[0-9]*; do
          args=$(tr '\0' ' ' < $p/cmdline 2>/dev/null)
          case "$args" in x11vnc*) ;; *) continue ;; esac
          echo "x11vnc: $args"
          port=$(echo "$args" | sed -n 's/.*-rfbport \([0-9]*\).*/\1/p')
          if timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null; then echo "reached port $port"; exit 1; fi
          if cat $p/fd/3 2>/dev/null | grep -q .; then echo "read its password pipe"; exit 1; fi
          if cat $p/environ 2>/dev/null | grep -q .; then echo "read its environment"; exit 1; fi
        done
        exit 0
        EOT
      ]
    }
  }
}
