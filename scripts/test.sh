#!/usr/bin/env bash
# The whole test suite: spec goldens, the engine on a real embedded Temporal
# server, the agents against the scripted model over HTTP, the device side
# on real applications under Xvfb, and the example tasks end to end.
#
# Two streams run side by side. One is the CLI's end-to-end tests, three at
# a time (each has its own desktop, state folder and ports, and a test
# waits on its applications and the server more than it computes). The
# other runs first every package that never touches a display, two at a
# time (specs, the agents, office files), the engine's beside them from the
# start (its tests four at a time: they mostly wait for its server), and the
# device's grounding set on real applications; then the other desktop
# packages (the device on real applications, calibration, the live view)
# with the CLI's cluster test beside them. Two of the CLI's longest tests
# run in whichever stream ends first.
# The Windows and macOS cross-builds are CI's step after this one
# (.ci/run, scripts/crossbuild.sh): from a cold build cache they compile
# every dependency twice more, 443 s of CPU, a third of the suite's.
# Every package runs with -short: the benchmarks among the tests (the
# grounding set, every profile end to end, 300-task suites) run their short
# versions; `go test ./...` without -short runs them whole (README).
# Arguments go to every `go test` run (for example -run X).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="/usr/local/go/bin:$PATH"
# Test binaries without DWARF: linking the CLI's, which holds the Temporal
# server, takes 17 s instead of 30, and about thirty binaries are linked.
# Stack traces and profiles keep their symbols (-w drops DWARF only).
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-ldflags=-w"
# The suite's Go processes (the compiler, the tests, the pcflow commands
# they start, each with a Temporal server) collect garbage half as often:
# the collector took 7% of the pcflow processes' CPU at the default (a
# CLI run's profiles) and 9% of the workflows tests', and the suite is
# bound by CPU (its cores busy 97% of its run). At 400 a fresh-clone run
# took more CPU, not less (1,219 s against 1,112; 41 s more of it in the
# kernel, fresh memory to map and zero).
export GOGC="${GOGC:-200}"
start=$(date +%s)
# go vet first, with all its analyzers, over every package and its tests;
# the tests then build without go test's own vet pass (-vet=off), which
# would analyse every dependency once more for its few analyzers' facts.
# (`go test -vet=all` instead of both: the CLI's test binary took 274 s to
# build instead of 23.)
go vet ./...
export GOFLAGS="$GOFLAGS -vet=off"
echo "test.sh: vet done $(( $(date +%s) - start )) s after setup"

mod=$(go list -m)
desktop_pkgs=(./activities/x11 ./internal/calibrate ./internal/liveview)
mapfile -t other_pkgs < <(go list ./... | sed "s#^$mod#.#" | grep -vxF -e ./cli "${desktop_pkgs[@]/#/-e}")
mapfile -t nodesk_pkgs < <(printf '%s\n' "${other_pkgs[@]}" | grep -vxF ./workflows)

# When test.sh has no arguments: the CLI's cluster test runs in the
# second stream beside the device's tests (it mostly waits: a link cut
# off, a database stopped, servers starting; beside both streams from the
# start it made the first phase 46 s longer and the suite 21 s), and two
# of the CLI's longest tests in whichever stream ends first (with a warm
# build cache the second stream ended first, 321 s against 341; from an
# empty one the CLI stream, 670 s against 724).
beside='TestClusterOfTwoNodes'
moved='TestEvalSmokeSuite|TestExamplePCEval'

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# The CLI's test binary, built beside the other stream's start (its link
# holds one core for about 15 s); both streams run it, the other only
# late, after waiting for clibuilt.
clitest="" clibuild=""
if [ "$#" -eq 0 ]; then
	clitest="$logs/cli.test"
	( code=0; go test -c -o "$clitest" ./cli || code=$?
	  echo "test.sh: the CLI's tests built $(( $(date +%s) - start )) s after setup"
	  echo "$code" >"$logs/clibuilt.tmp" && mv "$logs/clibuilt.tmp" "$logs/clibuilt" ) &
	clibuild=$!
fi
# clibuilt waits until the CLI's test binary is built (from either stream).
clibuilt() {
	until [ -f "$logs/clibuilt" ]; do sleep 1; done
	return "$(cat "$logs/clibuilt")"
}
# runmoved runs the moved tests unless the other stream has claimed them.
runmoved() {
	mkdir "$logs/moved.claim" 2>/dev/null || return 0
	local code=0
	{ clibuilt && runcli -test.parallel 3 -test.run "^($moved)\$"; } || code=$?
	echo "test.sh: the CLI's moved tests done $(( $(date +%s) - start )) s after setup (in the $1)"
	return "$code"
}
# runcli runs the CLI's tests like `go test ./cli` (in the package's
# folder), from the binary built above.
# Verbose, into a log of its own: a failure prints the whole log, a pass
# its ten slowest tests (where the suite's time goes, in every run).
runcli() {
	local code=0 began log
	began=$(date +%s)
	log=$(mktemp -p "$logs" cli.XXXX)
	(cd cli && "$clitest" -test.short -test.v -test.timeout 30m "$@") >"$log" 2>&1 || code=$?
	if [ "$code" -eq 0 ]; then
		echo "ok  	./cli ($*)	$(( $(date +%s) - began ))s; the slowest:"
		grep -E '^--- PASS: ' "$log" | sed -E 's/^--- PASS: ([^ ]+) \(([0-9.]+)s\)$/\2 \1/' | sort -rn | head -10 | sed 's/^/	/'
	else
		cat "$log"
		echo "FAIL	./cli ($*): exit $code after $(( $(date +%s) - began ))s"
	fi
	return "$code"
}
# runbin DIR BIN ARGS... runs a package's test binary in the package's
# folder, like `go test` (its "ok" line; the whole output on a failure).
runbin() {
	local dir=$1 bin=$2 code=0 began out
	shift 2
	began=$(date +%s)
	out=$(cd "$dir" && "$bin" -test.short -test.timeout 30m "$@" 2>&1) || code=$?
	if [ "$code" -eq 0 ]; then
		echo "ok  	$mod/${dir#./}	$(( $(date +%s) - began ))s"
	else
		echo "$out"
		echo "FAIL	$dir: exit $code after $(( $(date +%s) - began ))s"
	fi
	return "$code"
}
(
	rc=0
	if [ "$#" -eq 0 ]; then
		# The grounding set (LibreOffice, Chromium, … on a desktop of its
		# own; it mostly waits for them) beside the packages without a
		# desktop, which mostly wait for the Temporal server.
		# The desktop packages' test binaries are built once, together:
		# the grounding set and the device's other tests share one, and
		# `go test -p 1` would build the later ones one at a time.
		mkdir -p "$logs/bin"
		go test -c -o "$logs/bin/" "${desktop_pkgs[@]}"
		runbin ./activities/x11 "$logs/bin/x11.test" -test.run '^TestGrounding$' >"$logs/grounding" 2>&1 &
		grounding=$!
		# The engine's tests, the longest package (mostly waiting for
		# its server), from the start: listed last among the others,
		# they started last and ended the phase.
		go test -short -parallel 4 -count=1 -timeout 30m ./workflows >"$logs/engine" 2>&1 &
		engine=$!
		go test -short -p 2 -count=1 -timeout 30m "${nodesk_pkgs[@]}" >"$logs/other" 2>&1 || rc=$?
		wait "$engine" || rc=$?
		cat "$logs/engine" >>"$logs/other"
		wait "$grounding" || rc=$?
		echo "$rc" >"$logs/other.rc"
		echo "test.sh: packages without a desktop and the grounding set done $(( $(date +%s) - start )) s after setup" >"$logs/desktop"
		rc=0
		{ clibuilt && runcli -test.run "^($beside)\$"; } >"$logs/beside" 2>&1 &
		besidepid=$!
		for p in "${desktop_pkgs[@]}"; do
			runbin "$p" "$logs/bin/$(basename "$p").test" -test.skip '^TestGrounding$' >>"$logs/desktop" 2>&1 || rc=$?
		done
		echo "test.sh: the other desktop packages done $(( $(date +%s) - start )) s after setup" >>"$logs/desktop"
		wait "$besidepid" || rc=$?
		cat "$logs/beside" >>"$logs/desktop"
		echo "test.sh: the CLI's $beside done $(( $(date +%s) - start )) s after setup" >>"$logs/desktop"
		runmoved "second stream" >>"$logs/desktop" 2>&1 || rc=$?
	else
		go test -short -p 2 -count=1 -timeout 30m "${other_pkgs[@]}" "$@" >"$logs/other" 2>&1 || rc=$?
		echo "$rc" >"$logs/other.rc"
		rc=0
		go test -short -p 1 -count=1 -timeout 30m "${desktop_pkgs[@]}" "$@" >"$logs/desktop" 2>&1 || rc=$?
	fi
	echo "$rc" >"$logs/desktop.rc"
) &
second=$!
cli_rc=0
if [ "$#" -eq 0 ]; then
	wait "$clibuild" || true
	if clibuilt; then
		runcli -test.parallel 3 -test.skip "^($moved|$beside)\$" || cli_rc=$?
		echo "test.sh: the CLI stream done $(( $(date +%s) - start )) s after setup"
		runmoved "CLI stream" || cli_rc=$?
	else
		echo "test.sh: the CLI's tests did not build" >&2
		cli_rc=1
	fi
else
	go test -short -count=1 -parallel 3 -timeout 30m ./cli "$@" || cli_rc=$?
fi
wait "$second" || true
other_rc=$(cat "$logs/other.rc" 2>/dev/null || echo 1)
desktop_rc=$(cat "$logs/desktop.rc" 2>/dev/null || echo 1)
echo "--- packages with a desktop"
if [ -f "$logs/grounding" ]; then
	sed 's/^ok  /ok   (TestGrounding)/' "$logs/grounding"
fi
cat "$logs/desktop"
echo "--- packages without a desktop"
cat "$logs/other"
echo "test.sh: $(( $(date +%s) - start )) s after setup (vet, tests)"
if [ "$cli_rc" -ne 0 ] || [ "$desktop_rc" -ne 0 ] || [ "$other_rc" -ne 0 ]; then
  echo "test.sh: FAILED (cli: exit $cli_rc, other desktop packages: exit $desktop_rc, other packages: exit $other_rc)" >&2
  exit 1
fi
