#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# Every MCA parameter and MPI_T performance variable the component registers is listed by
# ompi_info with a description, and is documented in docs/parameters.md (so the docs cannot drift
# from the code).
. "${TEST_SRCDIR:-.}/mpitest.sh" || exit 99

doc="$TEST_SRCDIR/../../docs/parameters.md"
[ -r "$doc" ] || fail "missing $doc"
ompi_info="$(dirname "$MPIRUN")/ompi_info"
"$ompi_info" --param coll cloudaware --level 9 --parsable >"$TEST_LOG" 2>&1 || fail "ompi_info failed"
names=$(sed -n 's/^mca:coll:cloudaware:param:\([a-z0-9_]*\):help:.*/\1/p' "$TEST_LOG")
[ "$(echo "$names" | wc -w)" -ge 10 ] || fail "ompi_info listed too few parameters: $names"
missing=0
for n in $names; do
    help=$(sed -n "s/^mca:coll:cloudaware:param:$n:help://p" "$TEST_LOG")
    [ "${#help}" -ge 20 ] || { echo "parameter $n has no useful description: '$help'"; missing=1; }
    grep -q "\`$n\`" "$doc" || { echo "parameter $n is not documented in docs/parameters.md"; missing=1; }
done
pvars=$(sed -n 's/^mca:coll:cloudaware:pvar:\([a-z0-9_]*\):help:.*/\1/p' "$TEST_LOG")
[ "$(echo "$pvars" | wc -w)" -ge 20 ] || fail "ompi_info listed too few performance variables: $pvars"
for n in $pvars; do
    grep -q "\`$n\`" "$doc" || { echo "performance variable $n is not documented in docs/parameters.md"; missing=1; }
done
[ "$missing" -eq 0 ] || fail "undocumented parameters or performance variables"
echo "PASS: $(echo "$names" | wc -w) parameters listed with descriptions and documented, and $(echo "$pvars" | wc -w) performance variables"
