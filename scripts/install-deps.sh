#!/usr/bin/env bash
# Installs the Debian packages qchat needs to build, test and benchmark; does nothing when they
# are all present. Run as root (CI and the development machines are root).
set -euo pipefail
packages=(
    libngtcp2-dev libngtcp2-crypto-gnutls-dev libgnutls28-dev gnutls-bin
    libsqlite3-dev sqlite3 pkg-config tmux
    libargon2-dev
    redis-server redis-tools libhiredis-dev
    ngtcp2-server ngtcp2-client
    iproute2 procps util-linux
    prometheus lintian dpkg-dev fakeroot man-db systemd patchelf
)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
echo "installing: ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
