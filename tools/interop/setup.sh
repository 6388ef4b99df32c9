#!/usr/bin/env bash
# Create (or reuse) a Python venv with the pinned aioquic for the interop peer.
# Usage: setup.sh VENV_DIR      Idempotent; quiet on success.
set -euo pipefail

AIOQUIC_VERSION=1.7.2

die() { echo "setup.sh: error: $*" >&2; exit 1; }

[ $# -eq 1 ] && [ -n "$1" ] || die "usage: setup.sh VENV_DIR"
venv=$1
py=${PYTHON:-python3}

command -v "$py" >/dev/null || die "$py not found"
"$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "$py is too old (aioquic $AIOQUIC_VERSION needs >= 3.11): $("$py" --version 2>&1)"

if [ ! -x "$venv/bin/python" ]; then
    log=$("$py" -m venv "$venv" 2>&1) \
        || die "cannot create venv at $venv (on Debian: apt-get install python3-venv)"$'\n'"$log"
fi

installed=$("$venv/bin/python" -c \
    'from importlib.metadata import version; print(version("aioquic"))' 2>/dev/null || true)
if [ "$installed" != "$AIOQUIC_VERSION" ]; then
    log=$("$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        "aioquic==$AIOQUIC_VERSION" 2>&1) \
        || die "pip install aioquic==$AIOQUIC_VERSION failed:"$'\n'"$log"
fi

"$venv/bin/python" -c 'import aioquic.asyncio' 2>/dev/null \
    || die "aioquic is installed in $venv but cannot be imported"
