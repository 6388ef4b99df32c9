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
    iproute2 procps util-linux curl
    python3 python3-venv python3-pyte
    prometheus lintian dpkg-dev fakeroot man-db systemd patchelf
    avahi-daemon avahi-utils libavahi-client-dev dbus
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
# No service may start on the host while installing (avahi-daemon would multicast on the real
# interfaces; the discovery tests run their own daemons in network namespaces): a policy-rc.d
# that refuses every start, for the length of the install, where there is none already.
policy=/usr/sbin/policy-rc.d
made_policy=""
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
    $SUDO chmod 755 "$policy"
    made_policy=yes
fi
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
[ -z "$made_policy" ] || $SUDO rm -f "$policy"
# --no-install-recommends keeps libnss-mdns (which edits nsswitch.conf) out. Under systemd the
# package enables avahi-daemon for the next boot: the tests never need it.
for pid in $(pgrep -x avahi-daemon || true); do
    if [ "$(readlink "/proc/$pid/ns/net")" = "$(readlink /proc/1/ns/net)" ]; then
        echo "note: avahi-daemon $pid runs in the host's network (the tests start their own in namespaces)" >&2
    fi
done
