#!/bin/sh
# test_cli.sh - the planner CLI end to end: generate, show (text/json/dot/heatmap), plan
# (text/json/dot, --check, --montecarlo), the documented JSON keys, and one-line errors.
set -eu
P=${CLOUDAWARE_PLAN:-../../ompi/tools/cloudaware-plan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$P" generate --nodes 24 --racks 3 --oversubscription 5 --unevenness 0.3 --asymmetry 0.2 --seed 7 -o "$T/m.txt" >/dev/null
[ "$(stat -c %a "$T/m.txt")" = 600 ] || fail "matrix file mode"
"$P" generate --nodes 24 --racks 3 --oversubscription 5 --unevenness 0.3 --asymmetry 0.2 --seed 7 -o "$T/m2.txt" >/dev/null
cmp -s "$T/m.txt" "$T/m2.txt" || fail "generate is not reproducible"

"$P" show --matrix "$T/m.txt" | grep -q "^level 1: 3 groups, 8..8 nodes each" || fail "racks not found"
"$P" show --matrix "$T/m.txt" --format json --heatmap "$T/h.svg" >"$T/s.json" 2>/dev/null
grep -q '"levels": \[' "$T/s.json" || fail "show json: levels"
grep -q '"members": \[' "$T/s.json" || fail "show json: members"
grep -q '"leader": ' "$T/s.json" || fail "show json: leader"
grep -q '<svg' "$T/h.svg" || fail "heatmap"
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

# errors: one line naming file and line; usage errors exit 2
printf 'cloudaware-matrix 1\nnodes 2\nhost a\nhost b\nlatency_s\n0 1\n' >"$T/bad.txt"
if "$P" show --matrix "$T/bad.txt" 2>"$T/err"; then fail "truncated file accepted"; fi
grep -q "bad.txt:6: unexpected end of file" "$T/err" || fail "error message: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "error is not one line"
set +e
"$P" plan --matrix "$T/m.txt" --op nosuch --size 1 2>/dev/null
[ $? -eq 2 ] || fail "usage error status"
set -e
echo "cli ok"
