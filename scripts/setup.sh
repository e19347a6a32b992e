#!/usr/bin/env bash
# Installs what pcflow needs on Debian 12 and is missing: the X desktop,
# accessibility, the test applications, tesseract, robotgo's C headers, and
# bubblewrap (the sandbox `pcflow eval` runs each local device in), x11vnc
# and novnc (a device's live view in the browser), and what the cluster tests
# run: PostgreSQL, iproute2 (network namespaces) and openssl (certificates).
# Safe to run again: it installs only what is not there.
set -euo pipefail

packages=(
  xvfb xauth x11-utils openbox dbus-x11 at-spi2-core libatk-adaptor libgail-common
  xclip xsel fonts-dejavu-core libx11-dev libxtst-dev libpng-dev gcc
  mousepad galculator xterm zenity tesseract-ocr tesseract-ocr-eng
  libreoffice-calc libreoffice-writer libreoffice-impress libreoffice-gtk3 chromium curl ca-certificates bubblewrap
  x11vnc novnc openssl iproute2 postgresql ffmpeg
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    export PATH="/usr/local/go/bin:$PATH"
  else
    echo "setup: Go 1.26 is required (https://go.dev/dl); install it and run again" >&2
    exit 1
  fi
fi
cd "$(dirname "$0")/.."
go mod download
