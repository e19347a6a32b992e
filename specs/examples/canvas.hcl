# Press a button drawn on a <canvas>: no accessibility tree names it, so the
# Decision agent names it by description and the grounder (a model with a
# coordinate space, here UI-TARS-1.5) finds it on the screenshot.
task "canvas" {
  max_steps = 6
  timeout   = "3m"

  profiles {
    grounder = "uitars-1.5"
  }

  setup "open_page" {
    write_file {
      path    = "/tmp/pcflow-task/canvas.html"
      content = <<-HTML
        <!doctype html><html><head><title>Canvas buttons</title><style>body{margin:0;background:#fff}</style></head><body>
        <canvas id="c" width="900" height="420"></canvas>
        <script>
        const c = document.getElementById('c'), g = c.getContext('2d');
        const buttons = [{label: 'Cancel', x: 60, y: 100, w: 300, h: 120}, {label: 'Save', x: 480, y: 100, w: 300, h: 120}];
        function draw(msg) {
          g.fillStyle = '#fff'; g.fillRect(0, 0, c.width, c.height);
          g.font = 'bold 56px sans-serif'; g.textAlign = 'center'; g.textBaseline = 'middle';
          for (const b of buttons) {
            g.fillStyle = '#e4e8ee'; g.fillRect(b.x, b.y, b.w, b.h);
            g.strokeStyle = '#333'; g.lineWidth = 3; g.strokeRect(b.x, b.y, b.w, b.h);
            g.fillStyle = '#111'; g.fillText(b.label, b.x + b.w / 2, b.y + b.h / 2);
          }
          if (msg) { g.fillText(msg, 420, 330); }
        }
        draw('');
        c.addEventListener('click', e => {
          const r = c.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
          for (const b of buttons) {
            if (x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + b.h) {
              document.title = b.label === 'Save' ? 'Saved' : 'Cancelled';
              draw(document.title);
            }
          }
        });
        </script></body></html>
        HTML
    }
    launch = ["chromium", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-quic", "--force-renderer-accessibility",
    "--disable-dev-shm-usage", "--user-data-dir=/tmp/pcflow-task/chrome-canvas", "file:///tmp/pcflow-task/canvas.html"]
    wait_for_window = "Canvas buttons"
  }

  subtask "save" {
    instruction = "On the web page, press the Save button; it is drawn on a canvas, so no element of the list names it."

    check "saved" {
      window_title {
        contains = "Saved"
      }
    }
  }
}
