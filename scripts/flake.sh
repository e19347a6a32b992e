#!/usr/bin/env bash
# Finds flaky tests before CI does: runs packages' tests COUNT times each
# under an artificial load (busy loops, as CI's other stream gives the
# cores), then lists every test that failed at least once, with its
# message (scripts/flakesum). Exits 1 when one did.
#
#   bash scripts/flake.sh [-n COUNT] [-load N] [-parallel P] [-run REGEXP] [PKG ...]
#
#   -n COUNT      runs of each test (default 5)
#   -load N       busy loops beside the tests (default 2, one a core here)
#   -parallel P   tests of a package at a time (default 3, as test.sh runs the CLI's)
#   -run REGEXP   only these tests
#   PKG           packages (default: every package of the module, one at a time)
#
# The JSON of every run stays in flake-out/ (flake-out/PKG.json) for a
# closer look; the summary is printed at the end, and again per package.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
count=5 load=2 parallel=3 run=""
while [ $# -gt 0 ]; do
	case "$1" in
	-n) count=$2; shift 2 ;;
	-load) load=$2; shift 2 ;;
	-parallel) parallel=$2; shift 2 ;;
	-run) run=$2; shift 2 ;;
	-h|-help|--help) sed -n '2,/^set /p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "flake: unknown flag $1 (see --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
	mod=$(go list -m)
	mapfile -t pkgs < <(go list ./... | sed "s#^$mod#.#")
fi
out=flake-out
mkdir -p "$out"
go build -o "$out/flakesum" ./scripts/flakesum
busy=()
stop() { for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap stop EXIT
for _ in $(seq "$load"); do
	( while :; do :; done ) &
	busy+=($!)
done
echo "flake: ${#pkgs[@]} packages, each test $count times, $load busy loops beside"
start=$(date +%s)
all="$out/all.json"
: >"$all"
for p in "${pkgs[@]}"; do
	name=$(echo "${p#./}" | tr / _)
	began=$(date +%s)
	args=(-json -short -count="$count" -parallel "$parallel" -timeout 60m)
	[ -n "$run" ] && args+=(-run "$run")
	go test "${args[@]}" "$p" >"$out/$name.json" 2>&1 || true
	cat "$out/$name.json" >>"$all"
	if "$out/flakesum" <"$out/$name.json" >"$out/$name.txt"; then
		echo "flake: $p: $(head -1 "$out/$name.txt" | sed 's/^flake: //') in $(( $(date +%s) - began )) s"
	else
		echo "flake: $p: FAILURES in $(( $(date +%s) - began )) s"
		cat "$out/$name.txt"
	fi
done
echo "flake: all packages, $(( $(date +%s) - start )) s:"
"$out/flakesum" <"$all"
