#!/usr/bin/env bash
# Runs the example task on a headless desktop with the embedded Temporal
# server, then leaves the server and its Web UI up so the run can be read
# there. Without OPENAI_API_KEY the model is SCRIPTED (answers come from
# specs/examples/*.script.json, not from a real model).
#   scripts/demo.sh [TASK.hcl]      run (default: specs/examples/calculator.hcl)
#   scripts/demo.sh stop            stop the server and the desktop
set -euo pipefail
cd "$(dirname "$0")/.."
export PCFLOW_STATE="${PCFLOW_STATE:-$HOME/.pcflow}"
export PATH="/usr/local/go/bin:$PATH"
if [ "${1:-}" = stop ]; then
  [ -f "$PCFLOW_STATE/demo-server.pid" ] && kill "$(cat "$PCFLOW_STATE/demo-server.pid")" 2>/dev/null || true
  [ -f "$PCFLOW_STATE/demo-display" ] && bin/pcflow desktop down --display "$(cat "$PCFLOW_STATE/demo-display")" 2>/dev/null || true
  rm -f "$PCFLOW_STATE/demo-server.pid" "$PCFLOW_STATE/demo-display"
  exit 0
fi
task="${1:-specs/examples/calculator.hcl}"
bash scripts/setup.sh
mkdir -p bin "$PCFLOW_STATE"
echo "demo: building pcflow (the first build links the Temporal server: a few minutes)"
go build -o bin/pcflow ./cli
# A headless desktop: the one this demo started before, PCFLOW_DISPLAY, or
# the first free display from :90.
display="${PCFLOW_DISPLAY:-}"
if [ -z "$display" ] && [ -f "$PCFLOW_STATE/demo-display" ]; then
  display="$(cat "$PCFLOW_STATE/demo-display")"
fi
if [ -n "$display" ]; then
  bin/pcflow desktop up --display "$display" >/dev/null
else
  display="$(bin/pcflow desktop up | sed -n "s/^export DISPLAY='\(.*\)'$/\1/p")"
fi
echo "$display" >"$PCFLOW_STATE/demo-display"
if ! bin/pcflow status -n 1 --temporal 127.0.0.1:7233 >/dev/null 2>&1; then
  nohup bin/pcflow server >"$PCFLOW_STATE/demo-server.out" 2>&1 &
  echo $! >"$PCFLOW_STATE/demo-server.pid"
  for _ in $(seq 1 100); do
    bin/pcflow status -n 1 --temporal 127.0.0.1:7233 >/dev/null 2>&1 && break
    sleep 0.2
  done
fi
status=0
bin/pcflow run "$task" --display "$display" --temporal 127.0.0.1:7233 || status=$?
cat <<MSG

The Temporal server and its Web UI stay up: http://127.0.0.1:8233
  every step of the run:  bin/pcflow history RUN   (RUN as printed above)
  stop everything:        scripts/demo.sh stop
MSG
exit $status
