#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# debian/ agrees with the tree: the symbols file lists exactly what libura exports, the
# package's version is the Makefile's, the trigger never makes dpkg wait, the boot units are
# enabled and never started by dpkg, the daemons enabled and started, every man page is installed, the maintainer scripts parse
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
D="$TOP/debian"
[ -d "$D" ] || skip_all "no debian/ directory"
plan 7
nm -D --defined-only "$BUILD/libura.so.0" | awk '$2 == "T" {print $3}' | sort >"$T/exported"
sed -n 's/^ \(ura_[a-z_0-9]*\)@Base .*/\1/p' "$D/libura0.symbols" | sort >"$T/listed"
ok "libura0.symbols lists exactly the exported symbols" diff "$T/exported" "$T/listed"
ok "the package's version is the Makefile's" sh -c '
	v=$(sed -n "s/^VERSION := //p" "$1/Makefile")
	head -n 1 "$1/debian/changelog" | grep -F "ura ($v)"' - "$TOP"
ok "the trigger is interest-noawait only (dpkg never waits on it)" sh -c '
	grep -v "^interest-noawait /" "$1" >&2 && exit 1; grep "^interest-noawait /usr/bin$" "$1"' \
	- "$D/ura.triggers"
ok "the boot units enabled, never started by dpkg" sh -c 'sed -e :a -e "/\\\\$/N; s/\\\\\n//; ta" "$1" |
	grep -E "dh_installsystemd -pura --no-start .*ura-replay.service ura-trace-boot.service"' - "$D/rules"
ok "the daemons enabled and started (no --no-enable, no --no-start)" \
	grep -Ex '[[:space:]]*dh_installsystemd -pura ura-replay-watch.service ura-trace-watch.service' \
	"$D/rules"
ok "every man page is installed" sh -c 'for m in "$1"/man/*.[0-9]; do
	grep -Fx "usr/share/man/man${m##*.}" "$1/debian/ura.install" || exit 1; done' - "$TOP"
ok "the maintainer scripts parse" sh -c 'for f in "$1"/ura.postinst "$1"/ura.postrm "$1"/ura.prerm; do
	sh -n "$f" || exit 1; done' - "$D"
done_testing
