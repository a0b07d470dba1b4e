#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Print the path of a fresh copy of a debootstrapped Debian root (bookworm, minbase, with
# systemd, systemd-sysv and dbus so that `systemd-nspawn -b` can boot it), for the package
# tests (tests/package/*.t). The root is made once and kept as a tar file outside the clone;
# every call extracts a new copy, which the caller owns and removes (unmount what it bound
# into it first).
#
#   R=$(tests/package/mkroot.sh) || exit 1      # a new root, e.g. /var/tmp/ura-root.Xb3k9
#   tests/package/mkroot.sh --cache              # only make sure the cache exists; print the tar
#
# The cache's name holds a key of everything that shapes the root (suite, variant, mirror,
# packages, this recipe's version), so changing any of them makes a new cache; a cache older
# than URA_ROOT_MAX_DAYS (14) days is made again, so security updates are not weeks behind.
# Needs root and debootstrap; the first call downloads about 60 MB (a few minutes).
# Environment: URA_ROOT_CACHE (directory of the cache, /var/cache/ura-ci), URA_ROOT_MIRROR
# (http://deb.debian.org/debian), URA_ROOT_SUITE (bookworm), URA_ROOT_DIR (where copies go,
# /var/tmp), URA_ROOT_MAX_DAYS. Exit status: 0, the path printed; 1 failure (said on stderr).
set -euo pipefail

RECIPE=1	# bump when the way the root is made changes
CACHE_DIR=${URA_ROOT_CACHE:-/var/cache/ura-ci}
MIRROR=${URA_ROOT_MIRROR:-http://deb.debian.org/debian}
SUITE=${URA_ROOT_SUITE:-bookworm}
VARIANT=minbase
INCLUDE=systemd,systemd-sysv,dbus
COPY_DIR=${URA_ROOT_DIR:-/var/tmp}
MAX_DAYS=${URA_ROOT_MAX_DAYS:-14}

die() {
	echo "mkroot.sh: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, device nodes in the root)"
command -v debootstrap >/dev/null || die "debootstrap is missing (apt-get install debootstrap)"

key=$(printf '%s\n' "$RECIPE" "$SUITE" "$VARIANT" "$MIRROR" "$INCLUDE" "$(dpkg --print-architecture)" |
	sha256sum | cut -c1-12)
tar="$CACHE_DIR/$SUITE-$VARIANT-$key.tar"
mkdir -p "$CACHE_DIR"

# make_cache: debootstrap into a scratch directory, then pack it into $tar atomically
make_cache() {
	local dir
	dir=$(mktemp -d "$CACHE_DIR/.make.XXXXXX")
	echo "mkroot.sh: debootstrap $SUITE ($VARIANT, $INCLUDE) from $MIRROR, once" >&2
	if ! debootstrap --variant="$VARIANT" --include="$INCLUDE" "$SUITE" "$dir" "$MIRROR" \
		>"$dir.log" 2>&1; then
		tail -n 20 "$dir.log" >&2
		rm -rf "$dir" "$dir.log"
		die "debootstrap failed (log above)"
	fi
	# a root without a machine id gets one at its first boot; apt's lists are kept so that
	# apt-get install resolves dependencies without an update when the mirror is unreachable
	rm -f "$dir/etc/machine-id" "$dir/var/lib/dbus/machine-id"
	: >"$dir/etc/machine-id"
	rm -rf "$dir/var/cache/apt/archives/"*.deb
	tar -C "$dir" --numeric-owner -cpf "$tar.tmp" .
	mv -f "$tar.tmp" "$tar"
	rm -rf "$dir" "$dir.log"
	# older caches of other keys are of no use any more
	find "$CACHE_DIR" -maxdepth 1 -name "$SUITE-$VARIANT-*.tar" ! -name "${tar##*/}" -delete
}

# One maker at a time (the package and boot tests may run together); readers wait for it.
exec 9>"$CACHE_DIR/.lock"
flock 9
if [ ! -s "$tar" ] || [ -n "$(find "$tar" -mtime +"$MAX_DAYS" 2>/dev/null)" ]; then
	make_cache
fi
if [ "${1:-}" = --cache ]; then
	echo "$tar"
	exit 0
fi
mkdir -p "$COPY_DIR"
root=$(mktemp -d "$COPY_DIR/ura-root.XXXXXX")
tar -C "$root" --numeric-owner -xpf "$tar" || { rm -rf "$root"; die "cannot extract '$tar'"; }
chmod 0755 "$root"	# after tar, which gives the root mktemp's 0700 back
echo "$root"
