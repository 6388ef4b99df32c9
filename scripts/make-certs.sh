#!/usr/bin/env bash
# Makes a development CA, a server certificate for localhost (SAN localhost, 127.0.0.1, ::1) and a
# client certificate, all ECDSA P-256, plus an unrelated CA for negative tests.
# Usage: scripts/make-certs.sh DIR [CLIENT_NAME]. Existing files in DIR are kept.
set -euo pipefail
dir=${1:?usage: make-certs.sh DIR [CLIENT_NAME]}
client=${2:-qchat-client}
command -v certtool >/dev/null || { echo "make-certs: certtool missing (run 'make deps')" >&2; exit 1; }
mkdir -p "$dir"
cd "$dir"
umask 077
key() { [ -f "$1" ] || certtool --generate-privkey --key-type=ecdsa --curve=secp256r1 --outfile "$1" 2>/dev/null; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'cn = "qchat development CA"\nca\ncert_signing_key\nexpiration_days = 3650\n' > "$tmp/ca.tmpl"
printf 'cn = "qchat other CA"\nca\ncert_signing_key\nexpiration_days = 3650\n' > "$tmp/other.tmpl"
printf 'cn = "localhost"\ndns_name = "localhost"\nip_address = "127.0.0.1"\nip_address = "::1"\ntls_www_server\nsigning_key\nexpiration_days = 825\n' > "$tmp/server.tmpl"
printf 'cn = "%s"\ntls_www_client\nsigning_key\nexpiration_days = 825\n' "$client" > "$tmp/client.tmpl"

key ca.key
[ -f ca.pem ] || certtool --generate-self-signed --load-privkey ca.key --template "$tmp/ca.tmpl" --outfile ca.pem 2>/dev/null
key other-ca.key
[ -f other-ca.pem ] || certtool --generate-self-signed --load-privkey other-ca.key --template "$tmp/other.tmpl" --outfile other-ca.pem 2>/dev/null
key server.key
[ -f server.pem ] || certtool --generate-certificate --load-privkey server.key --load-ca-certificate ca.pem \
    --load-ca-privkey ca.key --template "$tmp/server.tmpl" --outfile server.pem 2>/dev/null
key client.key
[ -f client.pem ] || certtool --generate-certificate --load-privkey client.key --load-ca-certificate ca.pem \
    --load-ca-privkey ca.key --template "$tmp/client.tmpl" --outfile client.pem 2>/dev/null
chmod 644 ca.pem other-ca.pem server.pem client.pem
