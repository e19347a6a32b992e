#!/usr/bin/env bash
# Makes the certificates of a cluster with mutual TLS (openssl):
#   scripts/make-certs.sh DIR NODE...
# DIR/ca.pem signs everything (keep DIR/ca-key.pem offline); DIR/node.pem
# names every NODE (host names or IP addresses) and "pcflow-cluster", the
# name each node checks when its internal worker calls a frontend, and
# allows server and client use; DIR/client.pem is for clients and workers.
set -euo pipefail
dir=${1:?usage: scripts/make-certs.sh DIR NODE...}
shift
[ $# -gt 0 ] || { echo "make-certs: name at least one node (host name or IP address)" >&2; exit 1; }
mkdir -p "$dir"
cd "$dir"
umask 077
san="DNS:pcflow-cluster,IP:127.0.0.1"
for n in "$@"; do
  if [[ $n =~ ^[0-9.]+$ || $n == *:* ]]; then san="$san,IP:$n"; else san="$san,DNS:$n"; fi
done
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
[ -f ca-key.pem ] || key ca-key.pem
openssl req -x509 -new -key ca-key.pem -out ca.pem -days 825 -subj "/CN=pcflow cluster CA" 2>/dev/null
sign() { # name extensions
  key "$1-key.pem"
  openssl req -new -key "$1-key.pem" -out "$1.csr" -subj "/CN=$1" 2>/dev/null
  printf '%s\n' "$2" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial -out "$1.pem" -days 825 -extfile "$1.ext" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}
sign node "subjectAltName=$san
extendedKeyUsage=serverAuth,clientAuth"
sign client "extendedKeyUsage=clientAuth"
chmod 644 ca.pem node.pem client.pem
echo "make-certs: $dir/ca.pem, node.pem (names $san), client.pem, with their keys"
