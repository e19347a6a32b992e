#!/usr/bin/env bash
# The platform seam: every package but the device platforms and the
# Linux-only packages below builds for Windows and macOS, and each device
# platform builds for its own OS. The package list is computed (go list
# ./...), so a new package is cross-built from the day it is added.
# Usage: scripts/crossbuild.sh [-list | -all | -server]
#   -all     every package, the two that embed the Temporal server too
#            (CI's step after the tests, .ci/run: compiling the whole
#            server for two more systems takes about 8 minutes each on 2
#            cores, more than the rest of the cross-builds together)
#   -server  only those two
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"

# A device platform, with the packages beneath it, builds for its own OS
# only: DIR=GOOS. Add a line here for a new one (see ARCHITECTURE.md,
# "Adding a device platform").
platforms=(
	activities/x11=linux
)
# Linux-only beside the Linux device: the live view (x11vnc), the network
# namespaces of the cluster tests (netlab), the tests' X display numbers
# (testdisplay), the host runtime of local devices (worker/host:
# bubblewrap sandboxes, /proc) and the CLI's
# main, which wires the Linux device in.
linux_only=(internal/liveview internal/netlab internal/testdisplay worker/host cli)

mod=$(go list -m)
dirs=("${linux_only[@]}")
for p in "${platforms[@]}"; do
	dirs+=("${p%%=*}")
done
exclude="^$mod/($(IFS='|'; echo "${dirs[*]}"))(/.*)?\$"
# Packages with Go files on this host (a folder of tests alone builds nothing).
pkgs=$(go list -f '{{if .GoFiles}}{{.ImportPath}}{{end}}' ./... | grep -Ev "$exclude")
# The packages that embed the Temporal server (the embedded server and the
# engine tests' harness) run where the server runs; building them for two
# more systems compiles the whole server twice, minutes of CI on 2 cores.
# -all builds them too.
server=$(go list -f '{{.ImportPath}} {{join .Deps " "}}' $pkgs | awk '/ go.temporal.io\/server\//{print $1}')
case "${1:-}" in
-all) ;;
-server) pkgs=$server ;;
*)
	if [ -n "$server" ]; then
		echo "crossbuild: not built here (they embed the Temporal server; scripts/crossbuild.sh -all or -server builds them, as CI does):" $server
		pkgs=$(echo "$pkgs" | grep -vxF "$server")
	fi
	;;
esac
if [ -z "$pkgs" ]; then
	echo "crossbuild: no packages to build (go list ./... found none outside ${dirs[*]})" >&2
	exit 1
fi
if [ "${1:-}" = "-list" ]; then
	echo "$pkgs"
	exit 0
fi
for goos in windows darwin; do
	echo "crossbuild: GOOS=$goos go build, $(echo "$pkgs" | wc -l) packages"
	# shellcheck disable=SC2086 # one package per word
	if ! GOOS=$goos CGO_ENABLED=0 go build $pkgs; then
		echo "crossbuild: FAILED for GOOS=$goos: a package outside ${dirs[*]} uses what only Linux has; move that code under the Linux device (activities/x11) or into files per OS (see ARCHITECTURE.md, \"Adding a device platform\")" >&2
		exit 1
	fi
done
if [ "${1:-}" = "-server" ]; then
	echo "crossbuild: ok"
	exit 0
fi
host=$(go env GOOS)
for p in "${platforms[@]}"; do
	dir=${p%%=*} goos=${p#*=}
	if [ "$goos" = "$host" ]; then
		continue # built by go vet ./...
	fi
	echo "crossbuild: GOOS=$goos go build ./$dir/..."
	if ! GOOS=$goos go build "./$dir/..."; then
		echo "crossbuild: FAILED: the $goos device ($dir) does not build for $goos" >&2
		exit 1
	fi
done
echo "crossbuild: ok"
