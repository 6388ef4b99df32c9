#!/usr/bin/env bash
# Builds the Debian package qchat_VERSION_ARCH.deb with dpkg-deb from the built binaries:
# scripts/install.sh into a staging root (PREFIX=/usr), then the control file with Depends
# worked out by dpkg-shlibdeps from the libraries the binaries and the shipped Swift runtime
# load, md5sums, the conffile, copyright and changelog. `make deb` calls it.
#   PRODUCTS  folder of the built binaries (default .build/release)
#   DEBDIR    where the package goes (default .build/deb)
# The version is ProgramVersion.release in Sources/CLIOptions/ProgramVersion.swift.
set -euo pipefail
umask 022
repository=$(cd "$(dirname "$0")/.." && pwd)
debdir=${DEBDIR:-$repository/.build/deb}
version=$(sed -n 's/.*static let release = "\(.*\)".*/\1/p' "$repository/Sources/CLIOptions/ProgramVersion.swift")
[ -n "$version" ] || { echo "make-deb: no release version in Sources/CLIOptions/ProgramVersion.swift" >&2; exit 1; }
arch=$(dpkg --print-architecture)
for tool in dpkg-deb dpkg-shlibdeps; do
    command -v "$tool" >/dev/null || { echo "make-deb: $tool missing (run 'make deps')" >&2; exit 1; }
done

stage=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$stage" "$work"' EXIT
chmod 0755 "$stage"
DESTDIR=$stage PREFIX=/usr SYSCONFDIR=/etc UNITDIR=/lib/systemd/system PORT=4433 "$repository/scripts/install.sh" >/dev/null

doc=$stage/usr/share/doc/qchat
install -m 0644 "$repository/packaging/debian/copyright" "$doc/copyright"
commit=$(git -C "$repository" rev-parse --short HEAD 2>/dev/null || echo unknown)
when=$(date -R -d "@$(git -C "$repository" log -1 --format=%ct 2>/dev/null || date +%s)")
sed -e "s/@VERSION@/$version/" -e "s/@COMMIT@/$commit/" -e "s/@DATE@/$when/" "$repository/packaging/debian/changelog.in" \
    | gzip -9n > "$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"

# Depends: the Debian packages of the libraries every shipped ELF file loads; the Swift runtime
# is found in the package itself (-l), and has no package to depend on.
mkdir -p "$work/debian"
printf 'Source: qchat\n\nPackage: qchat\nArchitecture: any\n' > "$work/debian/control"
elves=("$stage"/usr/bin/* "$stage"/usr/lib/qchat/*.so)
shlibs=$(cd "$work" && dpkg-shlibdeps -O --ignore-missing-info -l"$stage/usr/lib/qchat" "${elves[@]}" 2>"$work/shlibdeps.log") || {
    cat "$work/shlibdeps.log" >&2
    exit 1
}
depends=${shlibs#shlibs:Depends=}
# The unit runs the server in the group ssl-cert, which the package ssl-cert creates.
depends="$depends, ssl-cert"

install -d -m 0755 "$stage/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" -e "s/@DEPENDS@/$depends/" \
    "$repository/packaging/debian/control.in" > "$stage/DEBIAN/control"
echo /etc/qchat/chat-server.conf > "$stage/DEBIAN/conffiles"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/conffiles" "$stage/DEBIAN/md5sums"

mkdir -p "$debdir"
package=$debdir/qchat_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$package" >/dev/null
echo "$package"
