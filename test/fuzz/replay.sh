#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# Replays the seed corpora (the docs' examples, written by seeds.py) and the regression corpora
# (test/fuzz/regress/KIND/, one file per past finding) through every fuzz target of this build:
# a crash, a sanitizer report (in the sanitizer build) or a broken invariant fails the test.
set -u
: "${TOP_SRCDIR:?}" "${FUZZ_BUILDDIR:?}"
src="$TOP_SRCDIR/test/fuzz"
seeds="$FUZZ_BUILDDIR/seeds"
rm -rf "$seeds"
python3 "$src/seeds.py" "$TOP_SRCDIR" "$seeds" || { echo "FAIL: seeds.py"; exit 1; }
# Out of memory is a finding too: no input here justifies a gigabyte. The limit is set for the
# ordinary build only: AddressSanitizer reserves terabytes of address space for its shadow memory
# (there contrib/run-sanitizers bounds single allocations with ASAN_OPTIONS instead).
if ! ldd "$FUZZ_BUILDDIR/fuzz_matrix" | grep -q libasan; then
    ulimit -v 1048576
fi
status=0
for kind in matrix rules cache_entry; do
    dir=${kind%_entry}
    n=$(find "$seeds/$dir" "$src/regress/$dir" -type f | wc -l)
    if "$FUZZ_BUILDDIR/fuzz_$kind" "$seeds/$dir" "$src/regress/$dir" 2>"$FUZZ_BUILDDIR/replay-$kind.err"; then
        echo "PASS: fuzz_$kind replayed $n files"
    else
        status=1
        echo "FAIL: fuzz_$kind (last lines of its output:)"
        tail -n 30 "$FUZZ_BUILDDIR/replay-$kind.err"
    fi
done
if python3 "$src/fuzz_topology.py" --replay "$seeds/topology" "$src/regress/topology"; then
    echo "PASS: fuzz_topology.py"
else
    status=1
    echo "FAIL: fuzz_topology.py"
fi
exit $status
