# Press a button on a web page in Chromium (must pass).
task "browser_search" {
  max_steps = 10
  timeout   = "3m"

  setup "open_page" {
    write_file {
      path    = "/tmp/pcflow-task/search.html"
      content = <<-HTML
        <!doctype html><html><head><title>Search page</title></head><body>
        <h1>Find a flight</h1>
        <form onsubmit="document.title='Searching ' + document.getElementById('q').value; return false">
        <label>City <input id="q" aria-label="City" autofocus></label> <button>Go</button></form>
        </body></html>
        HTML
    }
    launch = ["chromium", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-quic", "--force-renderer-accessibility",
    "--disable-dev-shm-usage", "--user-data-dir=/tmp/pcflow-task/chrome", "file:///tmp/pcflow-task/search.html"]
    wait_for_window = "Search page"
  }

  subtask "search_city" {
    instruction = "On the web page, search for Lisbon: type it into the City field and submit the search."

    check "searched" {
      window_title {
        contains = "Searching Lisbon"
      }
    }
  }
}
