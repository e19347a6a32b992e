# json checks: a settings file holding keys with values, a keybindings
# list holding an item.
task "settings" {
  instruction = "Wrap lines at column 50 and bind ctrl+j."

  check "wrap" {
    json {
      path   = "/home/user/.config/Code/User/settings.json"
      subset = "{\"editor.wordWrapColumn\": 50, \"files.exclude\": {\"**/__pycache__\": true}}"
    }
  }
  check "binding" {
    json {
      path     = "/home/user/.config/Code/User/keybindings.json"
      has_item = "{\"key\": \"ctrl+j\", \"command\": \"workbench.action.focusActiveEditorGroup\"}"
    }
  }
  check "thunderbird" {
    json {
      path        = "/home/user/.thunderbird/t5q2a5hp.default-release/prefs.js"
      format      = "prefs"
      subset      = "{\"mail.identity.id1.auto_quote\": false}"
      excludes    = "{\"mail.server.default.autosync_offline_stores\": false}"
      key_matches = "{\"extensions.activeThemeID\": \"dark\"}"
    }
  }
}
