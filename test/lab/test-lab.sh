#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# test/lab/test-lab.sh - bring up a small emulated cloud (the shipped topology test-4), check that
# Open MPI sees its hosts as separate nodes and that the shaped rates hold (lab verify), tear it down.
# Exit: 0 pass, 77 skip (the machine does not allow network namespaces), anything else fail.
# Standalone: needs root, iproute2, python3, mpicc/mpirun (Open MPI).  Runs as lab instance 9
# (CALAB_INSTANCE), so it does not disturb a lab someone keeps up as instance 0.  ~45 s.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
lab="$top/contrib/lab/lab"
topo="$top/contrib/lab/topologies/test-4.topo"
doc="$top/docs/lab-topology-format.md"
export CALAB_INSTANCE=9

step() { printf 'test-lab: %s\n' "$*"; }
fail() { printf 'test-lab: FAIL: %s\n' "$*" >&2; exit 1; }
skip() { printf 'SKIP: test-lab: %s\n' "$*" >&2; exit 77; }

# 1. the format doc shows the shipped test topology verbatim (docs cannot drift); no root needed
step "docs/lab-topology-format.md shows contrib/lab/topologies/test-4.topo verbatim"
python3 - "$doc" "$topo" <<'PY' || fail "the example in docs/lab-topology-format.md differs from test-4.topo"
import sys
doc, topo = open(sys.argv[1]).read(), open(sys.argv[2]).read()
start = doc.index("<!-- begin test-4.topo -->")
block = doc[start:doc.index("<!-- end test-4.topo -->")]
body = block.split("```", 2)[1].split("\n", 1)[1]
sys.exit(0 if body == topo else 1)
PY
"$lab" show "$topo" > /dev/null || fail "lab show $topo"

# 2. can this machine make network namespaces?
[ "$(id -u)" = 0 ] || skip "not root: the lab needs to create network namespaces"
for tool in ip tc unshare; do
    command -v "$tool" > /dev/null || skip "'$tool' not installed (iproute2/util-linux)"
done
unshare --net --uts true 2> /dev/null || skip "this machine does not allow network namespaces (unshare --net failed)"
command -v mpicc > /dev/null || fail "mpicc not found (apt-get install libopenmpi-dev)"
command -v mpirun > /dev/null || fail "mpirun not found (apt-get install openmpi-bin)"

tmp=$(mktemp -d /tmp/test-lab.XXXXXX)
cleanup() {
    "$lab" down > /dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT

"$lab" down > /dev/null 2>&1 || true   # leftovers of an interrupted earlier run of this test

step "lab up test-4"
"$lab" up "$topo" || fail "lab up"

step "compile and run an MPI program across the lab hosts"
mpicc -O2 -o "$tmp/lab-hello" "$here/lab-hello.c" || fail "mpicc lab-hello.c"
out=$("$lab" run -- "$tmp/lab-hello" 2>&1) || { printf '%s\n' "$out"; fail "lab run"; }
printf '%s\n' "$out"
grep -q "LAB-HELLO OK hosts=4 ranks=4" <<< "$out" || fail "expected 4 separate hosts and a correct bcast"

step "matrix file written in the component's format"
m=$("$lab" matrix)
head -n 12 "$m" | grep -q "^cloudaware-matrix 1" || fail "matrix $m: no 'cloudaware-matrix 1' header"
grep -q "^host calab9-h3$" "$m" || fail "matrix $m: hosts not named after the lab hosts"
tail -n 1 "$m" | grep -q "^end$" || fail "matrix $m: no 'end'"

step "lab verify (every ordered pair within 15 % of its configured rate, median of 5)"
# Median of 5, not 2: with 2 the median is the mean, and one slowed message (cause not found;
# the machine otherwise idle) put a pair 18-22 % under its rate in 3 of 3 runs, 5 gave 0.0 % in 3.
# Even so, 1 of 7 runs of this test here, minutes after a benchmark, had pairs out in both of its
# verifies (h2->h1 -25.8 % the second time), so a second verify follows one with pairs out and
# only a pair out both times fails: a shaping fault is the same pair each time.
# verify_out: one lab verify; prints the pairs out of tolerance, one per line (none: all within),
# and the verify's report on stderr when there are some; fails when it exits non-zero without one.
verify_out() {
    local out pairs
    out=$("$lab" verify --reps 5 2>&1) && return 0
    printf '%s\n' "$out" >&2
    pairs=$(grep 'OUT OF TOLERANCE' <<<"$out" | awk '{print $1 "->" $2}' | sort)
    [ -n "$pairs" ] || fail "lab verify failed without a pair out of tolerance"
    printf '%s\n' "$pairs"
}
first=$(verify_out)
if [ -n "$first" ]; then
    step "lab verify: out of tolerance: $(echo $first); measuring every pair once more"
    second=$(verify_out)
    again=$(comm -12 <(echo "$first") <(echo "$second"))
    [ -z "$again" ] || fail "lab verify: the same pairs out of tolerance twice: $(echo $again)"
fi

step "lab verify --gap (idle before each message: a probe, every pair reported, the matrix kept)"
mm="$(dirname "$m")/measured-matrix.txt"
sum_before=$(md5sum <"$mm")
out=$("$lab" verify --reps 1 --size 16384 --gap 5) || fail "lab verify --gap 5 exited non-zero"
grep -q "after 5 ms idle each" <<<"$out" || fail "lab verify --gap: no idle gap in the report"
grep -q "^12/12 pairs measured" <<<"$out" || fail "lab verify --gap: not every pair measured"
[ "$(md5sum <"$mm")" = "$sum_before" ] || fail "lab verify --gap overwrote $mm"
if "$lab" verify --gap -1 >/dev/null 2>&1; then fail "lab verify --gap -1 was accepted"; fi

step "lab set-rate / set-uplink change the running lab's shaping (tc class change)"
rate_kbit() {   # rate_kbit NETNS DEV CLASSID: the HTB class's rate in kbit/s (-1: none)
    tc -n "$1" class show dev "$2" classid "$3" | python3 -c '
import re, sys
m = re.search(r" rate ([0-9.]+)([KMG]?)bit", sys.stdin.read())
print(int(float(m.group(1)) * {"": 1e-3, "K": 1, "M": 1e3, "G": 1e6}[m.group(2)]) if m else -1)'
}
near() {   # near VALUE LOW HIGH
    [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}
before=$(rate_kbit calab9-h3 eth0 1:102)
"$lab" set-rate calab9-h0 1 6mbit || fail "lab set-rate calab9-h0 1 6mbit"
# goodput 6 Mbit/s is shaped as its wire rate (x1514/1448, labtopo.WIRE_FACTOR): 6273 kbit/s
near "$(rate_kbit calab9-h0 eth0 1:101)" 6200 6350 || fail "h0 -> h1 not shaped to 6 Mbit/s"
near "$(rate_kbit calab9-h1 eth0 1:100)" 6200 6350 || fail "h1 -> h0 not shaped to 6 Mbit/s"
"$lab" set-rate --one-way 2 3 3mbit || fail "lab set-rate --one-way 2 3 3mbit"
near "$(rate_kbit calab9-h2 eth0 1:103)" 3100 3175 || fail "h2 -> h3 not shaped to 3 Mbit/s"
[ "$(rate_kbit calab9-h3 eth0 1:102)" = "$before" ] || fail "--one-way changed h3 -> h2 too"
"$lab" set-uplink left 10mbit out || fail "lab set-uplink left 10mbit out"
near "$(rate_kbit calab9-r0 uplink 1:10)" 10400 10500 || fail "rack left's uplink not 10 Mbit/s"
if "$lab" set-rate 1 1 5mbit 2>/dev/null; then fail "set-rate accepted a host with itself"; fi
if "$lab" set-rate 0 9 5mbit 2>/dev/null; then fail "set-rate accepted a host that does not exist"; fi
if "$lab" set-uplink left 5mbit sideways 2>/dev/null; then fail "set-uplink accepted a bad direction"; fi
[ "$("$lab" status | grep -c "changed since up")" = 3 ] || fail "lab status does not list the 3 changes"

step "lab down removes everything, and is idempotent"
"$lab" down || fail "lab down"
left=$(ip netns list | grep -c '^calab9-' || true)
[ "$left" = 0 ] || fail "$left lab namespaces left after down"
if ip -o link show | grep -q ': cab9-'; then fail "lab links left after down"; fi
"$lab" down || fail "second lab down"

step "a failed up leaves nothing behind"
printf 'cloudaware-lab-topology 1\nname bad\nhosts 2\nrack r hosts 0-2 intra 1mbit\nend\n' > "$tmp/bad.topo"
if "$lab" up "$tmp/bad.topo" 2> /dev/null; then fail "lab up accepted a bad topology"; fi
[ "$(ip netns list | grep -c '^calab9-' || true)" = 0 ] || fail "namespaces left after a refused up"

step "PASS"
