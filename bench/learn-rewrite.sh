#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Does a run the learning daemon merges hold what the program read, when the daemon's pid filter
# is written afresh around its exec? (Emptying the list loses the listed tasks' events for tens
# of ms: such a run must be refused, not merged without them.) N distinct programs (default 16),
# each started once right after a burst of execs (python3 -c pass: through pyenv's shims, a
# few dozen), which is what makes the daemon rewrite its filter: a Python script that execs 12
# helpers, then reads a data file of its own. Prints, per program: "has" (its pack holds its
# data file), "MISSING" (merged without it: the fault), or why no pack; then the counts.
# Run as root: bench/learn-rewrite.sh [N]
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-16}
T=$(mktemp -d /run/ura-learn-rewrite.XXXXXX)
chmod 755 "$T"
truncate -s 64M "$T/img"
mkfs.ext4 -q -F "$T/img"
L=$(losetup -f --show "$T/img")
mkdir "$T/mnt"
mount "$L" "$T/mnt"
M=$T/mnt
trap 'kill "$D" 2>/dev/null; wait "$D" 2>/dev/null; umount "$M"; losetup -d "$L"; rm -rf "$T"' EXIT
mkdir -p "$M/bin" "$M/data"
only=()
for i in $(seq "$N"); do
	head -c $((40 * 4096)) /dev/urandom >"$M/data/launch$i"
	cat >"$M/bin/launch$i" <<EOP
#!/usr/bin/python3
import subprocess
for i in range(12):
    subprocess.run(["/bin/true"])
open("$M/data/launch$i", "rb").read()
EOP
	chmod 755 "$M/bin/launch$i"
	only+=(--only "$M/bin/launch$i")
done
"$TOP/build/ura-trace" --watch "$T/packs" --window 2 "${only[@]}" -v 2>"$T/daemon.log" &
D=$!
for _ in $(seq 100); do grep -q learning "$T/daemon.log" && break; sleep 0.1; done
has=0 missing=0 other=0
for i in $(seq "$N"); do
	python3 -c pass
	"$M/bin/launch$i"
	for _ in $(seq 50); do
		grep -qE "(learned|not learning this run of) '$M/bin/launch$i'" "$T/daemon.log" && break
		sleep 0.1
	done
	p=$(ls "$T"/packs/*launch"$i".pack 2>/dev/null)
	if [ -z "$p" ]; then
		echo "$i: no pack: $(grep -F "launch$i'" "$T/daemon.log" | tail -n 1 | sed "s|$M||")"
		other=$((other + 1))
	elif "$TOP/build/ura-dump" --json "$p" | grep -qF "\"$M/data/launch$i\""; then
		echo "$i: has"
		has=$((has + 1))
	else
		echo "$i: MISSING"
		missing=$((missing + 1))
	fi
done
echo "runs merged with their data file: $has; merged without it: $missing; not learned: $other"
