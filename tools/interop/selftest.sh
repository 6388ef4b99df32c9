#!/usr/bin/env bash
# Self-test of the aioquic interop peer against itself (loopback only).
# Usage: selftest.sh          Needs python3 and PyPI (via pip); installs gnutls-bin if needed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
server_pid=
passed=0
failed=0

cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid"; wait "$server_pid" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

die() { echo "selftest: error: $*" >&2; exit 1; }
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# --- environment -----------------------------------------------------------
"$here/setup.sh" "$tmp/venv" || die "setup.sh failed"
"$here/setup.sh" "$tmp/venv" || die "setup.sh failed on second (idempotent) run"
py=$tmp/venv/bin/python
peer=$here/aioquic_peer.py

if ! command -v certtool >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q gnutls-bin >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null && apt-get install -y -q gnutls-bin >/dev/null; } \
        || die "cannot install gnutls-bin (certtool)"
fi

# --- throwaway PKI (ECDSA P-256) ------------------------------------------
pki=$tmp/pki
mkdir -p "$pki"
genkey() { certtool --generate-privkey --key-type=ecdsa --curve=secp256r1 \
               --outfile "$1" >/dev/null 2>&1 || die "certtool: key generation failed"; }
make_ca() {  # make_ca NAME
    genkey "$pki/$1.key"
    printf 'cn = "qchat interop %s"\nca\ncert_signing_key\nexpiration_days = 2\n' "$1" >"$pki/$1.tmpl"
    certtool --generate-self-signed --load-privkey "$pki/$1.key" --template "$pki/$1.tmpl" \
        --outfile "$pki/$1.pem" >/dev/null 2>&1 || die "certtool: CA $1 failed"
}
make_ca ca
make_ca wrong-ca
genkey "$pki/server.key"
cat >"$pki/server.tmpl" <<'TMPL'
cn = "localhost"
dns_name = "localhost"
ip_address = "127.0.0.1"
ip_address = "::1"
tls_www_server
signing_key
expiration_days = 2
TMPL
certtool --generate-certificate --load-privkey "$pki/server.key" \
    --load-ca-certificate "$pki/ca.pem" --load-ca-privkey "$pki/ca.key" \
    --template "$pki/server.tmpl" --outfile "$pki/server.pem" >/dev/null 2>&1 \
    || die "certtool: server certificate failed"

# --- server ----------------------------------------------------------------
"$py" "$peer" server --host 127.0.0.1 --port 0 --cert "$pki/server.pem" --key "$pki/server.key" \
    --alpn qchat/1 --alpn qchat-test >"$tmp/server.out" 2>"$tmp/server.err" &
server_pid=$!
port=
for _ in $(seq 100); do   # up to 10 s
    port=$(sed -n 's/^READY \([0-9][0-9]*\)$/\1/p' "$tmp/server.out")
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
[ -n "$port" ] || { cat "$tmp/server.err" >&2; die "server did not print READY"; }
echo "server READY on 127.0.0.1:$port"

# --- cases -----------------------------------------------------------------
client() {  # client ARGS...  -> sets out, rc
    out=$("$py" "$peer" client --host 127.0.0.1 --port "$port" --timeout 20 "$@" 2>"$tmp/client.err")
    rc=$?
}
json_check() {  # json_check PYTHON-EXPR-ON-r
    printf '%s' "$out" | "$py" -c 'import json,sys; r=json.loads(sys.stdin.read()); sys.exit(0 if ('"$1"') else 1)' 2>/dev/null
}
good='r["handshake"] and r["alpn"]=="qchat/1" and r["stream_ok"] and r["stream_bytes"]==100000 and r["datagrams_sent"]==3 and 1<=r["datagrams_echoed"]<=3 and r["ok"]'

client --alpn qchat/1 --ca "$pki/ca.pem" --server-name localhost
echo "  $out"
if [ $rc -eq 0 ] && json_check "$good"; then pass "echo via CA, name localhost"; else fail "echo via CA, name localhost (rc=$rc)"; fi

client --alpn qchat/1 --ca "$pki/ca.pem"
echo "  $out"
if [ $rc -eq 0 ] && json_check "$good"; then pass "echo via CA, IP SAN 127.0.0.1"; else fail "echo via CA, IP SAN 127.0.0.1 (rc=$rc)"; fi

client --alpn qchat-test --ca "$pki/ca.pem" --server-name localhost --bytes 3000000 --datagrams 10
echo "  $out"
if [ $rc -eq 0 ] && json_check 'r["alpn"]=="qchat-test" and r["stream_bytes"]==3000000 and r["ok"]'; then
    pass "second ALPN, 3 MB stream, 10 datagrams"; else fail "second ALPN, 3 MB stream (rc=$rc)"; fi

client --alpn qchat/1 --ca "$pki/wrong-ca.pem" --server-name localhost
echo "  $out"; sed 's/^/  stderr: /' "$tmp/client.err"
if [ $rc -ne 0 ] && json_check 'not r["handshake"] and not r["ok"]'; then pass "wrong CA rejected (rc=$rc)"; else fail "wrong CA not rejected (rc=$rc)"; fi

client --alpn qchat/1 --ca "$pki/ca.pem" --server-name not-localhost.example
echo "  $out"; sed 's/^/  stderr: /' "$tmp/client.err"
if [ $rc -ne 0 ] && json_check 'not r["handshake"]'; then pass "wrong server name rejected (rc=$rc)"; else fail "wrong server name not rejected (rc=$rc)"; fi

client --alpn nope --ca "$pki/ca.pem" --server-name localhost
echo "  $out"; sed 's/^/  stderr: /' "$tmp/client.err"
if [ $rc -ne 0 ] && json_check 'not r["handshake"]'; then pass "unknown ALPN rejected (rc=$rc)"; else fail "unknown ALPN not rejected (rc=$rc)"; fi

# --- server shutdown ---------------------------------------------------------
kill -TERM "$server_pid"
wait "$server_pid"; src=$?
server_pid=
if [ $src -eq 0 ]; then pass "server exits 0 on SIGTERM"; else fail "server exit status $src on SIGTERM"; sed 's/^/  server: /' "$tmp/server.err"; fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
