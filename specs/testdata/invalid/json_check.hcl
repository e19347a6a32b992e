task "settings" {
  instruction = "Wrap lines at column 50."

  check "nothing" {
    json {
      path = "/tmp/settings.json"
    }
  }
  check "not_json" {
    json {
      path   = "/tmp/settings.json"
      subset = "{editor.wordWrapColumn: 50}"
    }
  }
  check "list_subset" {
    json {
      path   = "/tmp/settings.json"
      subset = "[50]"
    }
  }
  check "both" {
    json {
      path     = "/tmp/settings.json"
      subset   = "{\"a\": 1}"
      has_item = "1"
    }
  }
  check "bad_format" {
    json {
      path   = "/tmp/prefs.js"
      format = "pref"
      subset = "{\"a\": 1}"
    }
  }
  check "python_pattern" {
    json {
      path        = "/tmp/prefs.js"
      format      = "prefs"
      key_matches = "{\"a\": \"(?<=x)y\"}"
    }
  }
  check "prefs_list" {
    json {
      path     = "/tmp/prefs.js"
      format   = "prefs"
      has_item = "1"
    }
  }
}
