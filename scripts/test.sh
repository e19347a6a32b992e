#!/usr/bin/env bash
# The whole test suite: spec goldens, the engine on a real embedded Temporal
# server, the agents against the scripted model over HTTP, the device side
# on real applications under Xvfb, and the example tasks end to end.
#
# Two streams run side by side: the packages that drive X desktops, one
# package at a time (their tests start their own displays, and two desktop
# packages racing on 2 cores slow each other more than they gain), and every
# other package (specs, the engine, the agents, office files), which never
# touch a display. Arguments go to both `go test` runs (for example -run X).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="/usr/local/go/bin:$PATH"
start=$(date +%s)
go vet ./...
# The core builds for every OS (the platform seam).
bash scripts/crossbuild.sh

desktop_pkgs=(./cli ./activities/x11 ./internal/calibrate ./internal/liveview)
mapfile -t other_pkgs < <(go list ./... | sed 's#^github.com/pcflow/pcflow#.#' | grep -vxF -e ./cli -e ./activities/x11 -e ./internal/calibrate -e ./internal/liveview)

other_log=$(mktemp)
trap 'rm -f "$other_log"' EXIT
go test -p 1 -count=1 -timeout 60m "${other_pkgs[@]}" "$@" >"$other_log" 2>&1 &
other=$!
desktop_rc=0
go test -p 1 -count=1 -timeout 60m "${desktop_pkgs[@]}" "$@" || desktop_rc=$?
other_rc=0
wait "$other" || other_rc=$?
echo "--- packages without a desktop"
cat "$other_log"
echo "test.sh: $(( $(date +%s) - start )) s after setup (vet, cross-builds, tests)"
if [ "$desktop_rc" -ne 0 ] || [ "$other_rc" -ne 0 ]; then
  echo "test.sh: FAILED (desktop packages: exit $desktop_rc, other packages: exit $other_rc)" >&2
  exit 1
fi
