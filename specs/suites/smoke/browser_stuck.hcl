# Must fail with step_limit: the page never shows what the agent waits for.
task "browser_stuck" {
  max_steps = 3
  timeout   = "3m"

  setup "open_page" {
    write_file {
      path    = "/tmp/pcflow-task/slow.html"
      content = "<!doctype html><html><head><title>Loading</title></head><body><p>Loading results…</p></body></html>\n"
    }
    launch = ["chromium", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-quic", "--force-renderer-accessibility",
    "--disable-dev-shm-usage", "--user-data-dir=/tmp/pcflow-task/chrome", "file:///tmp/pcflow-task/slow.html"]
    wait_for_window = "Loading"
  }

  subtask "wait_results" {
    instruction = "Wait for the results on the web page and report the first one."

    output "first" {}
  }
}
