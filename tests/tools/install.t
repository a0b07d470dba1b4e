#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A staged `make install DESTDIR=...`, then a program built against the staged libura.pc reads a pack
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
S="$T/stage"
plan 9
run_ok "make install into DESTDIR" make -C "$TOP" BUILD="$BUILD" install DESTDIR="$S" PREFIX=/usr LIBDIR=/usr/lib
ok "binaries, library, header and man pages installed" sh -c "cd '$S' && ls usr/sbin/ura-trace usr/sbin/ura-replay usr/sbin/ura-dump usr/include/ura/pack.h usr/lib/libura.so.0 usr/lib/libura.a usr/lib/pkgconfig/libura.pc usr/share/man/man5/ura-pack.5 usr/share/man/man8/ura-dump.8"
ok "libura.pc names the install prefix" grep -Fx 'libdir=/usr/lib' "$S/usr/lib/pkgconfig/libura.pc"
ok "libura.pc does not pull in the tracing libraries" sh -c "! grep -E 'tracefs|traceevent|tracecmd' '$S/usr/lib/pkgconfig/libura.pc'"
cat >"$T/reader.c" <<'C'
#include <stdio.h>
#include <ura/pack.h>

int main(int argc, char **argv)
{
	struct ura_pack *p;
	struct ura_pack_file f;
	int r = ura_pack_open(argv[1], &p);

	if (r < 0) {
		fprintf(stderr, "open: %d %s\n", r, ura_pack_error());
		return 1;
	}
	ura_pack_get_file(p, 0, &f);
	printf("files=%zu ranges=%zu first=%s\n", ura_pack_file_count(p), ura_pack_range_count(p), f.path);
	ura_pack_free(p);
	return 0;
}
C
export PKG_CONFIG_PATH="$S/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$S"
ok "pkg-config finds libura" pkg-config --exists libura
# a SANITIZE build's library needs the program built with the same sanitizers
ok "a program compiles against the staged libura.pc" sh -c "cc \${URA_TEST_SAN:-} -o '$T/reader' '$T/reader.c' \$(pkg-config --cflags --libs libura)"
run_ok "and reads a pack with the shared library" env LD_LIBRARY_PATH="$S/usr/lib" "$T/reader" "$DATA/golden-v1.pack"
ok "what it read is right" grep -Fx "files=4 ranges=6 first=usr/bin/python3.11" "$T/out"
ok "the shared library exports only the ura_pack API" sh -c "nm -D --defined-only '$S/usr/lib/libura.so.0' | awk '\$2 == \"T\" {print \$3}' | grep -v '^ura_pack_' | tee /dev/stderr | [ \$(wc -l) = 0 ]"
done_testing
