#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What a replay costs the device by itself: ura-replay --wait of PACK, alone, from a cold page
# cache, in the testbed's throttled cgroup under PROFILE (bench/testbed, up.sh first), RUNS
# times per variant, interleaved. Prints per variant the median [min-max] of the replay's time,
# of the reads the throttle counted (blkio.throttle.io_serviced: every bio, after the block
# layer's splits, is one of the profile's IOPS) and of the MB it read. A replay started with
# the program cannot be done before this time: beside the ordered limit, it says how much of
# a start's gap is the replay's own device time.
# Usage: bench/replay-alone.sh PACK PROFILE [RUNS] ['NAME=OPTIONS' ...]   (root; drops caches)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
TB=${TESTBED:-$(dirname "$0")/testbed}
PACK=${1:?usage: replay-alone.sh PACK PROFILE [RUNS] [NAME=OPTIONS...]}
PROFILE=${2:?usage: replay-alone.sh PACK PROFILE [RUNS] [NAME=OPTIONS...]}
RUNS=${3:-5}
shift 2
shift || true
. "${TESTBED_WORK:-/var/tmp/ura-testbed}/state.env"
make -s -C "$TOP" ura-replay >/dev/null
[ $# -gt 0 ] || set -- "default="
counter() { awk -v d="$MAJMIN" '$1 == d && $2 == "Read" { print $3 }' "$CG/$1"; }
declare -A times ios mbs
for _ in $(seq "$RUNS"); do
	for v in "$@"; do
		name=${v%%=*} opts=${v#*=}
		sync
		echo 3 >/proc/sys/vm/drop_caches
		sleep 0.3
		i0=$(counter blkio.throttle.io_serviced) b0=$(counter blkio.throttle.io_service_bytes)
		t0=$(date +%s%N)
		# shellcheck disable=SC2086
		"$TB/slowrun" "$PROFILE" -- "$TOP/build/ura-replay" -q --wait --root "$MNT" $opts "$PACK"
		t1=$(date +%s%N)
		i1=$(counter blkio.throttle.io_serviced) b1=$(counter blkio.throttle.io_service_bytes)
		times[$name]+=" $(((t1 - t0) / 1000000))"
		ios[$name]+=" $((i1 - i0))"
		mbs[$name]+=" $(((b1 - b0) / 1000000))"
	done
done
stat() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 }
	END { printf "%s [%s-%s]", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
printf '%-12s %-24s %-20s %s\n' variant "time ms" "throttled reads" MB
for v in "$@"; do
	name=${v%%=*}
	printf '%-12s %-24s %-20s %s\n' "$name" "$(stat <<<"${times[$name]}")" \
		"$(stat <<<"${ios[$name]}")" "$(stat <<<"${mbs[$name]}")"
done
