#!/bin/sh
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# test_cli.sh - the planner CLI end to end: generate, show (text/json/dot/heatmap), plan
# (text/json/dot, --check, --montecarlo), trace (the example of docs/trace-format.md: text, json,
# hints, SVG, comparison, bad input), the documented JSON keys, and one-line errors.
set -eu
P=${CLOUDAWARE_PLAN:-../../ompi/tools/cloudaware-plan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$P" generate --nodes 24 --racks 3 --oversubscription 5 --unevenness 0.3 --asymmetry 0.2 --seed 7 -o "$T/m.txt" >/dev/null
[ "$(stat -c %a "$T/m.txt")" = 600 ] || fail "matrix file mode"
"$P" generate --nodes 24 --racks 3 --oversubscription 5 --unevenness 0.3 --asymmetry 0.2 --seed 7 -o "$T/m2.txt" >/dev/null
cmp -s "$T/m.txt" "$T/m2.txt" || fail "generate is not reproducible"

"$P" show --matrix "$T/m.txt" >"$T/show.txt"
grep -q "^level 1: 3 groups, 8..8 nodes each" "$T/show.txt" || fail "racks not found"
grep -q "^read .*, hierarchy .*, total .* CPU); 3 levels" "$T/show.txt" || fail "show times: $(sed -n 2p "$T/show.txt")"
# Version 5 node rows (both lone samples): every node's slowest two peers (across racks) five
# times faster alone than in their rounds, except node 0's slowest, a pair as slow alone: show
# prints the bottlenecks and each sampled pair's own rate, node 0's at x1.00
python3 - "$T/m.txt" "$T/m5.txt" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
n = int(next(l for l in lines if l.startswith("nodes ")).split()[1])
b = lines.index("bandwidth_Bps")
bw = [[float(x) for x in lines[b + 1 + i].split()] for i in range(n)]
rows = {k: [] for k in ("lone", "shared", "lone2", "shared2")}
for i in range(n):
    slow = sorted((bw[i][j], j) for j in range(n) if j != i)[:2]
    rows["shared"].append(slow[0][0]); rows["lone"].append(slow[0][0] * (1 if i == 0 else 5))
    rows["shared2"].append(slow[1][0]); rows["lone2"].append(slow[1][0] * 5)
out = [l for l in lines[:lines.index("end")] if not l.startswith("#")]
out[0] = "cloudaware-matrix 5"
zeros = " ".join(["0"] * n)
for k, v in (("egress_Bps", zeros), ("ingress_Bps", zeros), ("overhead_s", zeros),
             ("lone_Bps", rows["lone"]), ("shared_Bps", rows["shared"]), ("burst_bytes", zeros),
             ("lone2_Bps", rows["lone2"]), ("shared2_Bps", rows["shared2"])):
    out += ["node_" + k, v if isinstance(v, str) else " ".join(repr(x) for x in v)]
open(sys.argv[2], "w").write("\n".join(out + ["end", ""]))
PY
"$P" show --matrix "$T/m5.txt" >"$T/show5.txt" || fail "show of a version 5 matrix"
grep -q "^shared bottlenecks (3 groups" "$T/show5.txt" || fail "no bottlenecks: $(grep -A1 '^shared' "$T/show5.txt")"
grep -q "^  node 0 -> [0-9]* sampled alone: .* x1.00)$" "$T/show5.txt" || fail "node 0's own sample not shown"
[ "$(grep -c "sampled alone: .* x5.00)$" "$T/show5.txt")" -eq 47 ] || fail "sampled pairs: $(grep -c sampled "$T/show5.txt")"
# --reference: against the round rates, every pair across the racks is believed five times
# faster alone (at most the capacity) but node 0's sampled one; a reference without a host fails
"$P" show --matrix "$T/m5.txt" --reference "$T/m.txt" >"$T/ref.txt" || fail "show --reference"
grep -q "^against .*: 384 pairs across shared bottlenecks, median x[45]\.[0-9]*; 383 above x1.3, 0 below x0.77$" \
    "$T/ref.txt" || fail "--reference summary: $(grep ^against "$T/ref.txt")"
[ "$(grep -c '^  node[0-9]* -> node[0-9]*: x[0-9.]* (model ' "$T/ref.txt")" -eq 8 ] || fail "--reference: not 8 pairs listed"
"$P" generate --nodes 8 --seed 1 -o "$T/m8.txt" >/dev/null
if "$P" show --matrix "$T/m5.txt" --reference "$T/m8.txt" >/dev/null 2>"$T/err"; then fail "--reference of other hosts accepted"; fi
grep -q "m8.txt: no host node0008$" "$T/err" || fail "--reference error: $(cat "$T/err")"
"$P" show --matrix "$T/m.txt" --format json --heatmap "$T/h.svg" >"$T/s.json" 2>/dev/null
grep -q '"levels": \[' "$T/s.json" || fail "show json: levels"
grep -q '"members": \[' "$T/s.json" || fail "show json: members"
grep -q '"leader": ' "$T/s.json" || fail "show json: leader"
grep -q '<svg' "$T/h.svg" || fail "heatmap"
# PNG heatmap: signature, IHDR 1100 x 640 8-bit RGB, chunk CRCs, and an IDAT zlib stream that
# inflates to one filter byte plus 3 bytes per pixel for every row
"$P" show --matrix "$T/m.txt" --heatmap "$T/h.png" >/dev/null || fail "png heatmap"
python3 - "$T/h.png" <<'PY' || fail "png heatmap content"
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n", "signature"
pos, chunks, idat = 8, [], b""
while pos < len(d):
    n, = struct.unpack(">I", d[pos:pos + 4])
    typ, data = d[pos + 4:pos + 8], d[pos + 8:pos + 8 + n]
    crc, = struct.unpack(">I", d[pos + 8 + n:pos + 12 + n])
    assert zlib.crc32(typ + data) & 0xFFFFFFFF == crc, "crc of %r" % typ
    chunks.append(typ)
    if typ == b"IHDR":
        w, h, depth, ctype, comp, filt, inter = struct.unpack(">IIBBBBB", data)
        assert (w, h, depth, ctype, comp, filt, inter) == (1100, 640, 8, 2, 0, 0, 0), data
    if typ == b"IDAT":
        idat += data
    pos += 12 + n
assert chunks[0] == b"IHDR" and chunks[-1] == b"IEND" and b"IDAT" in chunks, chunks
raw = zlib.decompress(idat)
assert len(raw) == h * (1 + 3 * w), len(raw)
rows = [raw[y * (1 + 3 * w):(y + 1) * (1 + 3 * w)] for y in range(h)]
assert all(r[0] == 0 for r in rows), "filter type"
# the first latency cell (row 0, column 1; the diagonal cell 0 is white) is blue, not white
px = rows[55][1 + 3 * (20 + 30):1 + 3 * (20 + 30) + 3]
assert px[2] == 255 and px[0] < 255 and px[0] == px[1], px
PY
if "$P" show --matrix "$T/m.txt" --heatmap "$T/h.gif" 2>"$T/err" >/dev/null; then fail "gif heatmap accepted"; fi
grep -q "heatmaps are .svg or .png" "$T/err" || fail "heatmap extension error: $(cat "$T/err")"
"$P" show --matrix "$T/m.txt" --format dot 2>/dev/null | grep -q '^digraph hierarchy' || fail "show dot"

for op in bcast reduce allreduce gather scatter allgather; do
    "$P" plan --matrix "$T/m.txt" --op $op --root 5 --size 256KiB --ranks-per-node 2 --check \
        --format json >"$T/p.json" || fail "plan $op"
    for key in '"predicted_s": ' '"baselines": {"binomial_s": ' '"check": "ok"'; do
        grep -q "$key" "$T/p.json" || fail "plan $op json: $key"
    done
done
grep -q '"ring_s": ' "$T/p.json" || fail "allgather json: ring_s"
"$P" plan --matrix "$T/m.txt" --op scatter --root 2 --size 1MiB --montecarlo 50 --format json >"$T/mc.json"
grep -q '"montecarlo": {"trees": 50, "best_s": ' "$T/mc.json" || fail "montecarlo json"
grep -q '"median_s": ' "$T/mc.json" || fail "montecarlo median"
"$P" plan --matrix "$T/m.txt" --op gather --root 0 --size 1MiB | grep -q "^predicted " || fail "plan text"
"$P" plan --matrix "$T/m.txt" --op bcast --root 0 --size 1MiB --format dot | grep -q '^digraph plan' || fail "plan dot"

# the decision (cacore_decide, as the component): the previous module's algorithm and the reason;
# a rule, a trial outcome and --previous change it as they do in the component
for key in '"previous": {"module": "tuned", "algorithm": ' '"decision": {"runs": '; do
    grep -q "$key" "$T/p.json" || fail "plan json: $key"
done
"$P" plan --matrix "$T/m.txt" --op bcast --size 1MiB --ranks-per-node 2 >"$T/d.txt"
grep -q "^previous .* tuned knomial (tuned)$" "$T/d.txt" || fail "tuned's bcast of 1 MiB over 48 ranks (lines 583-586): $(grep ^previous "$T/d.txt")"
grep -q "^decision: " "$T/d.txt" || fail "decision line"
"$P" plan --matrix "$T/m.txt" --op bcast --size 1MiB --ranks-per-node 2 --previous basic | grep -q "^previous .* basic log (basic)$" || fail "--previous basic"
"$P" plan --matrix "$T/m.txt" --op bcast --size 1MiB --trial previous | grep -q "^decision: previous module (live trial" || fail "--trial previous"
"$P" plan --matrix "$T/m.txt" --op bcast --size 1MiB --trial plan | grep -q "^decision: plan .*(live trial" || fail "--trial plan"
printf 'cloudaware-rules 2\nbcast 1 0 model\nbcast 4 512K fallback\nend\n' >"$T/r.conf"
"$P" plan --matrix "$T/m.txt" --op bcast --size 1MiB --rules "$T/r.conf" --trial plan | grep -q "^decision: previous module (rules file line 3)$" || fail "--rules fallback"
if "$P" plan --matrix "$T/m.txt" --op bcast --size 1MiB --previous nosuch 2>/dev/null; then fail "--previous nosuch accepted"; fi
# the benchmark's shipped rules files parse; forward.rules (cloudaware-forward) sends every op of
# every size to the previous module, whatever the model and the trial say
for op in bcast reduce allreduce gather scatter allgather; do
    for size in 1 1K 4M; do
        "$P" plan --matrix "$T/m.txt" --op $op --size $size --rules "${TOP_SRCDIR:-../..}/contrib/bench/forward.rules" \
            --trial plan | grep -q "^decision: previous module (rules file line 6)$" || fail "forward.rules: $op $size"
    done
done
"$P" plan --matrix "$T/m.txt" --op bcast --size 1MiB --rules "${TOP_SRCDIR:-../..}/contrib/bench/lab.rules" \
    | grep -q "^decision: " || fail "lab.rules"

# relay around a bad link (docs/model.md): on cloud-8's configured matrix (host 2 -> host 6 at
# 8 Mbit/s) the linear scatter from rank 4 (host 2) relays the parts of ranks 12 and 13 (host 6)
# through a third host, and --relay off builds it without
"${TOP_SRCDIR:-../..}/contrib/lab/lab" show cloud-8 | sed -n '/^# written by/,$p' >"$T/cloud8.txt"
"$P" plan --matrix "$T/cloud8.txt" --ranks-per-node 2 --op scatter --root 4 --size 1MiB --algo linear \
    --check --steps >"$T/relay.txt" || fail "relayed plan"
grep -q "^decision: plan linear over ranks relay 4->12 via [0-9]*, 4->13 via [0-9]* " "$T/relay.txt" \
    || fail "no relay around 2 -> 6: $(grep ^decision "$T/relay.txt")"
grep -q "recv TMP0\[12+1\] <- 4" "$T/relay.txt" || fail "relay steps not shown"
"$P" plan --matrix "$T/cloud8.txt" --ranks-per-node 2 --op scatter --root 4 --size 1MiB --algo linear \
    --relay off | grep -q "relay" && fail "--relay off relayed"
if "$P" plan --matrix "$T/cloud8.txt" --op scatter --size 1MiB --relay maybe 2>/dev/null; then fail "--relay maybe accepted"; fi

# --lanes K fixes the lanes plan's lane count (to price a kept variant offline): cloud-8's 8 hosts
# take 1 and 2 lanes as asked; a lane count on another algorithm, or 5, is a usage error
for k in 1 2; do
    "$P" plan --matrix "$T/cloud8.txt" --ranks-per-node 2 --op bcast --root 0 --size 1MiB --algo lanes \
        --lanes $k --check | grep -q "^decision: .*lanes k=$k " || fail "--lanes $k not kept"
done
if "$P" plan --matrix "$T/cloud8.txt" --op bcast --size 1MiB --lanes 2 2>"$T/err" >/dev/null; then
    fail "--lanes without --algo lanes accepted"
fi
grep -q "^cloudaware-plan: --lanes applies to --algo lanes$" "$T/err" || fail "--lanes error: $(head -1 "$T/err")"
if "$P" plan --matrix "$T/cloud8.txt" --op bcast --size 1MiB --algo lanes --lanes 5 2>/dev/null >/dev/null; then
    fail "--lanes 5 accepted"
fi

# --duplex (coll_cloudaware_model_duplex): a two-way exchange of 1 MiB between two nodes costs
# about both directions' sum with 0 (every message) and with 65536 (above 64 KiB), about one
# direction with -1 and by default (-2, measured: the executor posts its sends first, and this
# matrix has no shared-bottleneck groups)
pred() {
    "$P" plan --matrix "$T/cloud8.txt" --rank-nodes 0,1 --op allreduce --root 0 --size 1MiB \
        --algo cool --pattern recdbl,recdbl,recdbl "$@" |
        awk '/^predicted/ { print $2 * ($3 == "s" ? 1000 : 1) }'
}
def=$(pred) all=$(pred --duplex 0) above=$(pred --duplex 65536) none=$(pred --duplex -1)
[ -n "$def" ] && [ "$def" = "$none" ] && [ "$all" = "$above" ] &&
    awk -v a="$all" -v b="$none" 'BEGIN { exit !(a > 1.8 * b && a < 2.2 * b) }' ||
    fail "--duplex: default $def ms, 0 $all ms, 65536 $above ms, -1 $none ms"
for bad in maybe -3; do
    if "$P" plan --matrix "$T/cloud8.txt" --op allreduce --size 1MiB --duplex "$bad" 2>/dev/null; then
        fail "--duplex $bad accepted"
    fi
done

# --burst (what if short messages pass an idle pair at once): one 1 KiB bcast between two nodes
# from idle links (--one-call) costs the latency only with --burst 1K, and the bandwidth again
# with a byte less; -1 (the default) takes the matrix's measured credit, none in this version 1 file
pred1k() {
    "$P" plan --matrix "$T/cloud8.txt" --rank-nodes 0,1 --op bcast --root 0 --size 1KiB --algo binomial "$@" |
        awk '/^predicted/ { print $2 * ($3 == "s" ? 1000 : $3 == "us" ? 0.001 : 1) }'
}
bulk=$(pred1k) burst=$(pred1k --burst 1K --one-call) less=$(pred1k --burst 1023 --one-call)
measured=$(pred1k --burst -1)
[ -n "$bulk" ] && [ "$bulk" = "$less" ] && [ "$bulk" = "$measured" ] &&
    awk -v a="$burst" -v b="$bulk" 'BEGIN { exit !(a > 0 && a < b) }' ||
    fail "--burst: none $bulk ms, 1K $burst ms, 1023 $less ms, measured $measured ms"
if "$P" plan --matrix "$T/cloud8.txt" --op bcast --size 1KiB --burst maybe 2>/dev/null; then fail "--burst maybe accepted"; fi
# Without --one-call the call is one of many (the component's view): the burst's debt comes due,
# so the call takes its pair's bytes at the pair's rate, between the burst's latency and the bulk
# price (latency + bytes); the plan the component would choose is shown priced with the what-if
rep=$(pred1k --burst 1K)
awk -v r="$rep" -v a="$burst" -v b="$bulk" 'BEGIN { exit !(r > a && r < b) }' ||
    fail "repeated calls: $rep ms, not between --one-call's $burst and the bulk $bulk ms"
"$P" plan --matrix "$T/cloud8.txt" --rank-nodes 0,1 --op bcast --root 0 --size 1KiB --algo binomial \
    --burst 1K --one-call | grep -q '^without --burst and --one-call: .*, predicted .*; with it ' ||
    fail "--one-call: no line for the plan without the what-if"

# errors: one line naming file and line; usage errors exit 2
printf 'cloudaware-matrix 1\nnodes 2\nhost a\nhost b\nlatency_s\n0 1\n' >"$T/bad.txt"
if "$P" show --matrix "$T/bad.txt" 2>"$T/err"; then fail "truncated file accepted"; fi
grep -q "bad.txt:2: 'nodes 2' needs at least 57 more bytes" "$T/err" || fail "error message: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "error is not one line"
# values out of the documented range are rejected when read (a bandwidth of 1e-320 used to
# reach the JSON output as inf); JSON never holds inf or nan
printf 'cloudaware-matrix 1\nnodes 2\nhost a\nhost b\nlatency_s\n0 1e-5\n1e-5 0\nbandwidth_Bps\n0 1e-320\n1e9 0\nend\n' >"$T/tiny.txt"
if "$P" plan --matrix "$T/tiny.txt" --op bcast --root 0 --size 1MiB --format json >"$T/t.json" 2>"$T/err"; then
    fail "a bandwidth of 1e-320 was accepted: $(cat "$T/t.json")"
fi
grep -q "tiny.txt:9: bandwidth_Bps \[0\]\[1\] = 1e-320 is out of range 1..1e+15 bytes/s" "$T/err" || fail "range error: $(cat "$T/err")"
if grep -Eiq '(inf|nan)[,} ]' "$T/s.json" "$T/p.json" "$T/mc.json"; then fail "inf or nan in JSON"; fi
# only regular files: a FIFO is refused at once (it used to block the open for good)
mkfifo "$T/fifo"
rc=0
timeout 20 "$P" show --matrix "$T/fifo" 2>"$T/err" >/dev/null || rc=$?
[ $rc -eq 1 ] || fail "FIFO as matrix: exit status $rc (124 = hung until the timeout)"
grep -q "fifo: not a regular file (a FIFO); a matrix file must be a regular file" "$T/err" || fail "FIFO message: $(cat "$T/err")"
# input quoted in a message is escaped: a control character in a file name or a token
esc=$(printf '\033')
cp "$T/bad.txt" "$T/b${esc}[31m.txt"
if "$P" show --matrix "$T/b${esc}[31m.txt" 2>"$T/err"; then fail "bad file accepted"; fi
if grep -q "$esc" "$T/err"; then fail "raw escape character in the message"; fi
grep -qF 'b\x1b[31m.txt:2: ' "$T/err" || fail "escaped file name: $(cat "$T/err")"
"$P" plan --matrix "$T/m.txt" --op "bc${esc}ast" --size 1 2>"$T/err" >/dev/null || true
if grep -q "$esc" "$T/err"; then fail "raw escape character in a usage error"; fi
grep -qF "unknown --op 'bc\x1b" "$T/err" || fail "escaped --op: $(head -1 "$T/err")"
set +e
"$P" plan --matrix "$T/m.txt" --op nosuch --size 1 2>/dev/null
[ $? -eq 2 ] || fail "usage error status"
"$P" plan --matrix "$T/m.txt" --op bcast --size 1MB 2>"$T/err" >/dev/null
[ $? -eq 2 ] && grep -q "suffixes are binary" "$T/err" || fail "decimal size suffix: $(cat "$T/err")"
set -e
# Sizes are binary everywhere (as the rules file): 1M, 1024K, 1MiB and 1048576 are one size.
for s in 1M 1024K 1MiB 1048576; do
    "$P" plan --matrix "$T/m.txt" --op gather --root 0 --size $s | grep "^predicted " >>"$T/sizes"
done
[ "$(sort -u "$T/sizes" | wc -l)" -eq 1 ] || fail "1M, 1024K, 1MiB, 1048576 differ: $(cat "$T/sizes")"
# trace: the documented example (docs/examples/trace), its pictures, a comparison, bad input.
EX=${TOP_SRCDIR:-../..}/docs/examples/trace
"$P" trace "$EX" --matrix "$EX/cluster.matrix" --svg-timeline "$T/tl.svg" --svg-links "$T/ln.svg" >"$T/tr.txt"
grep -q "^messages: 3 sends matched with their receives, 0 unmatched steps, 0 with different sizes" "$T/tr.txt" && grep -q "^calls: 2, 0 of them" "$T/tr.txt" \
    || fail "trace: messages"
grep -q "critical path: rank 2 arrives -> rank 0 (group, 1 MiB" "$T/tr.txt" || fail "trace: critical path"
grep -q "node-a -> node-b: 1049 Mbit/s over 1 messages (1 MiB), matrix 7924 Mbit/s (13 %)" "$T/tr.txt" \
    || fail "trace: link"
for f in tl ln; do
    head -c 4 "$T/$f.svg" | grep -q "<svg" && tail -n 1 "$T/$f.svg" | grep -q "</svg>" || fail "trace: $f.svg"
done
[ "$(grep -c 'fill="#d62728"' "$T/tl.svg")" -eq 6 ] || fail "trace: timeline has one wait shade per step"
"$P" trace "$EX" --format json | python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["messages"] == 3 and len(d["calls"]) == 2, d' \
    || fail "trace: json"
"$P" trace "$EX" --matrix "$EX/cluster.matrix" --hints | grep -q "^suggestion: the matrix no longer matches link node-a -> node-b" \
    || fail "trace: hints"
"$P" trace "$EX" "$EX" | grep -q "^  bcast  .* 1.000 " || fail "trace: comparison"
mkdir "$T/bad"
printf 'cloudaware-trace 1\nrank 0 size 1 job 1 host h pid 1\nclock realtime x\n' >"$T/bad/rank-0.trace"
set +e
"$P" trace "$T/bad" >/dev/null 2>"$T/err"
[ $? -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "rank-0.trace:3: field 'realtime'" "$T/err" \
    || fail "trace: corrupt file: $(cat "$T/err")"
"$P" trace "$T/nonexistent" >/dev/null 2>"$T/err"
[ $? -eq 1 ] && grep -q "cannot open the trace directory" "$T/err" || fail "trace: missing directory"
"$P" trace >/dev/null 2>&1
[ $? -eq 2 ] || fail "trace without a directory: usage error"
set -e
echo "cli ok"
