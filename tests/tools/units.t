#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The boot units: systemd-analyze verify accepts them; replay early, with --daemon, on the pack
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
if ! command -v systemd-analyze >/dev/null; then
	echo "1..0 # SKIP systemd-analyze is missing (apt-get install systemd)"
	exit 0
fi
plan 19
U="$TOP/systemd"
# verify needs the ExecStart binaries: point /usr/sbin at the build tree
mkdir -p "$T/units"
for u in "$U"/*.service "$U"/*.timer; do
	[ -e "$u" ] && sed "s|/usr/sbin/|$BUILD/|g" "$u" >"$T/units/${u##*/}"
done
run_ok "systemd-analyze verify accepts the units" \
	sh -c 'cd "$1" && systemd-analyze verify --man=no ./*.service' - "$T/units"
ok "no warnings from verify" sh -c '! grep -v "^$" "$1/err"' - "$T"
R="$U/ura-replay.service" B="$U/ura-trace-boot.service"
ok "ura-replay.service: no default dependencies" grep -Fx "DefaultDependencies=no" "$R"
ok "ura-replay.service: before sysinit.target" grep -E "^Before=.*sysinit.target" "$R"
ok "ura-replay.service: only with a boot pack" grep -Fx "ConditionPathExists=/var/lib/ura/boot.pack" "$R"
ok "ura-replay.service: detaches (--daemon, Type=forking)" \
	sh -c 'grep -E "^ExecStart=/usr/sbin/ura-replay .*--daemon .*/var/lib/ura/boot.pack$" "$1" && grep -Fx "Type=forking" "$1"' - "$R"
ok "ura-trace-boot.service: records when there is no pack" \
	grep -Fx "ConditionPathExists=|!/var/lib/ura/boot.pack" "$B"
ok "ura-trace-boot.service: or when replay marked it stale" \
	sh -c 'grep -Fx "ConditionPathExists=|/var/lib/ura/retrace" "$1" && grep -Fx "ConditionPathExists=!/var/lib/ura/retrace" "$2" && grep -F -- "--mark-stale /var/lib/ura/retrace" "$2"' - "$B" "$R"
ok "ura-trace-boot.service: system-wide, stops when the boot is idle" \
	grep -E "^ExecStart=/usr/sbin/ura-trace --system .*--until-idle [0-9]+ .*--pack /var/lib/ura/boot.pack" "$B"
ok "ura-trace-boot.service: traces at read_ahead_kb 4" \
	grep -E "^ExecStart=/usr/sbin/ura-trace .*--read-ahead-kb 4 " "$B"
W="$U/ura-trace-watch.service"
ok "ura-trace-watch.service: learns into /var/lib/ura/programs" \
	grep -E "^ExecStart=/usr/sbin/ura-trace --watch /var/lib/ura/programs( |$)" "$W"
ok "ura-trace-watch.service: installed for multi-user.target" \
	grep -Fx "WantedBy=multi-user.target" "$W"
ok "ura-trace-watch.service: needs no replay daemon" sh -c '! grep -E "^(Requires|BindsTo|Wants)=.*ura-replay" "$1"' - "$W"
RW="$U/ura-replay-watch.service"
ok "ura-replay-watch.service: runs ura-replay --watch on the programs' packs" \
	grep -E "^ExecStart=/usr/sbin/ura-replay --watch /var/lib/ura/programs$" "$RW"
ok "ura-replay-watch.service: a long-running daemon (Type=simple), stopped within 5 s" \
	sh -c 'grep -Fx "Type=simple" "$1" && grep -Fx "TimeoutStopSec=5" "$1"' - "$RW"
ok "ura-replay-watch.service: needs no other ura unit" \
	sh -c '! grep -E "^(Requires|Wants|BindsTo|Requisite|After|Before)=.*ura-" "$1"' - "$RW"
ok "ura-replay-watch.service: for multi-user.target, not at boot's start" \
	sh -c 'grep -Fx "WantedBy=multi-user.target" "$1" && ! grep -F sysinit.target "$1"' - "$RW"
ok "ura-replay-watch.service: ura.disable skips it" \
	grep -Fx "ConditionKernelCommandLine=!ura.disable" "$RW"
ok "the tools the units run exist" test -x "$BUILD/ura-replay" -a -x "$BUILD/ura-trace"
done_testing
