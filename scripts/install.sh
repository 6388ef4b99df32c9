#!/usr/bin/env bash
# Installs chat-server, chat-client and chat-bot with the Swift runtime libraries they need, the
# man pages, the example configuration, a configuration (kept if one is there) and the systemd
# unit. `make install` and `make deb` call it; the environment says where:
#   PRODUCTS    folder of the built binaries (default .build/release)
#   DESTDIR     staging root, prepended to every path (default: none)
#   PREFIX      /usr/local by default; /usr for a package
#   SYSCONFDIR  /etc for PREFIX=/usr, else PREFIX/etc
#   UNITDIR     PREFIX/lib/systemd/system by default
#   PORT        the UDP port written into the installed configuration (default 4433); below
#               1024 the unit grants CAP_NET_BIND_SERVICE, and only then
# The binaries find the Swift runtime in PREFIX/lib/qchat through RUNPATH $ORIGIN/../lib/qchat.
set -euo pipefail
umask 022
repository=$(cd "$(dirname "$0")/.." && pwd)
products=${PRODUCTS:-$repository/.build/release}
destdir=${DESTDIR:-}
prefix=${PREFIX:-/usr/local}
if [ -z "${SYSCONFDIR:-}" ]; then
    if [ "$prefix" = /usr ]; then SYSCONFDIR=/etc; else SYSCONFDIR=$prefix/etc; fi
fi
unitdir=${UNITDIR:-$prefix/lib/systemd/system}
port=${PORT:-4433}
programs=(chat-server chat-client chat-bot)

fail() { echo "install: $*" >&2; exit 1; }
for tool in patchelf strip ldd gzip; do command -v "$tool" >/dev/null || fail "$tool missing (run 'make deps')"; done
[[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -le 65535 ] || fail "PORT must be a port number, not '$port'"
for program in "${programs[@]}"; do
    [ -x "$products/$program" ] || fail "$products/$program is not built (run 'make build', or set PRODUCTS)"
done

bindir=$destdir$prefix/bin
libdir=$destdir$prefix/lib/qchat
mandir=$destdir$prefix/share/man
docdir=$destdir$prefix/share/doc/qchat
confdir=$destdir$SYSCONFDIR/qchat
install -d "$bindir" "$libdir" "$mandir/man1" "$mandir/man8" "$docdir" "$confdir" "$destdir$unitdir"

# The binaries, stripped, looking for the Swift runtime beside the installation.
for program in "${programs[@]}"; do
    install -m 0755 "$products/$program" "$bindir/$program"
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$bindir/$program"
    patchelf --set-rpath '$ORIGIN/../lib/qchat' "$bindir/$program"
done

# The Swift runtime libraries they load (ldd shows the whole closure): whatever comes from the
# toolchain, that is from the folder of libswiftCore.so.
runtime=$(ldd "$products/chat-server" | awk '$1 == "libswiftCore.so" { print $3 }')
[ -n "$runtime" ] || fail "cannot find the Swift runtime chat-server uses (ldd shows no libswiftCore.so)"
runtime=$(dirname "$runtime")
for program in "${programs[@]}"; do
    ldd "$products/$program" | awk -v dir="$runtime/" 'index($3, dir) == 1 { print $3 }'
done | sort -u | while read -r library; do
    install -m 0644 "$library" "$libdir/$(basename "$library")"
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$libdir/$(basename "$library")"
done

# Manual pages, compressed as Debian ships them.
for page in "$repository"/packaging/man/*.[18]; do
    section=${page##*.}
    gzip -9n -c "$page" > "$mandir/man$section/$(basename "$page").gz"
    chmod 0644 "$mandir/man$section/$(basename "$page").gz"
done

# The example, and a configuration from it unless one is installed already.
install -m 0644 "$repository/packaging/chat-server.conf.example" "$docdir/chat-server.conf.example"
if [ ! -e "$confdir/chat-server.conf" ]; then
    sed "s/^port = .*/port = $port/" "$repository/packaging/chat-server.conf.example" > "$confdir/chat-server.conf"
    chmod 0644 "$confdir/chat-server.conf"
fi

# The unit: a capability only for a port that needs one.
if [ "$port" -lt 1024 ]; then
    capabilities='AmbientCapabilities=CAP_NET_BIND_SERVICE\nCapabilityBoundingSet=CAP_NET_BIND_SERVICE'
else
    capabilities='CapabilityBoundingSet='
fi
sed -e "s|@BINDIR@|$prefix/bin|g" -e "s|@SYSCONFDIR@|$SYSCONFDIR|g" -e "s|@CAPABILITIES@|$capabilities|" \
    "$repository/packaging/chat-server.service.in" > "$destdir$unitdir/chat-server.service"
chmod 0644 "$destdir$unitdir/chat-server.service"
echo "installed chat-server, chat-client, chat-bot in $bindir (Swift runtime in $libdir, unit in $destdir$unitdir)"
