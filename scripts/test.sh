#!/usr/bin/env bash
# The whole test suite: spec goldens, the engine on a real embedded Temporal
# server, the agents against the scripted model over HTTP, the device side
# on real applications under Xvfb, and the example tasks end to end.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="/usr/local/go/bin:$PATH"
go vet ./...
# The core builds for every OS (the platform seam).
bash scripts/crossbuild.sh
# One package at a time: the desktop tests each start their own displays,
# and 2 cores are better spent on one real run than on three racing ones.
go test -p 1 -count=1 -timeout 80m ./... "$@"
