# The machine an OSWorld task expects (home folder /home/user, user
# "user"), and its loopback: the setup starts a server on 127.0.0.1 and
# sets git's global user name; the checks reach the server, read
# ~/.gitconfig, find the account and the applications' settings folders
# inside the home folder.
task "machine" {
  max_steps = 3
  timeout   = "2m"

  device "desktop" {
    home = "/home/user"
    user = "user"
  }

  setup "serve" {
    command = ["sh", "-c", "cd /tmp && echo pcflow-served > index.html && nohup /usr/bin/python3 -m http.server 8099 --bind 127.0.0.1 >/dev/null 2>&1 &"]
  }
  setup "git" {
    command = ["sh", "-c", "git config --global user.name X"]
  }

  subtask "look" {
    instruction = "Look at the desktop, then finish."
  }

  check "loopback_up" {
    command {
      argv            = ["ip", "-o", "link", "show", "lo"]
      stdout_contains = ",UP"
    }
  }
  check "server_reached" {
    command {
      # The server may still be starting: up to 20 s.
      argv            = ["sh", "-c", "i=0; until curl -sf http://127.0.0.1:8099/index.html; do i=$((i+1)); [ $i -lt 200 ] || exit 7; sleep 0.1; done"]
      stdout_contains = "pcflow-served"
    }
  }
  check "home" {
    command {
      argv      = ["sh", "-c", "test \"$HOME\" = /home/user && cd ~ && test \"$(pwd)\" = /home/user && grep -q 'name = X' ~/.gitconfig && touch ~/written"]
      exit_code = 0
    }
  }
  check "account" {
    command {
      argv            = ["sh", "-c", "getent passwd user | cut -d: -f6"]
      stdout_contains = "/home/user"
    }
  }
  check "settings_in_home" {
    command {
      argv      = ["sh", "-c", "test \"$XDG_CONFIG_HOME\" = ~/.config && test \"$XDG_CACHE_HOME\" = ~/.cache && test \"$XDG_DATA_HOME\" = ~/.local/share"]
      exit_code = 0
    }
  }
}
