task "post_run" {
  instruction = "x"
  post_run "nothing" {
  }
  post_run "bad" {
    wait_timeout = "10s"
    commands     = "ls"
    press {
      window = "("
      keys   = []
    }
    sleep = "forever"
  }
  post_run "bad" {
    sleep = "1s"
  }
}
