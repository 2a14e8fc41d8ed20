#!/bin/bash
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# The cache directory under attack (docs/calibration.md, "Cache"), with pretend nodes on one
# machine: a symbolic link anywhere in the directory's path or a directory writable by others is
# refused with one warning; an entry from the future is stale; a planted symbolic link or FIFO
# entry (or one of another owner) is replaced by the measured matrix instead of blocking the cache
# for good, and a link's target is never written; leftover temporary files of a crashed writer
# are removed. Every job stays correct.
. "${TEST_SRCDIR:-.}/mpitest.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/cloudaware-cache.XXXXXX")
trap 'rm -rf "$TEST_LOG" "$work"' EXIT
prog="$TEST_BUILDDIR/calib_check"
base=(--mca coll cloudaware,basic,libnbc --mca coll_cloudaware_min_nodes 1
      --mca coll_cloudaware_verbose 10 --mca coll_cloudaware_test_fake_nodes 3
      --mca coll_cloudaware_calibrate_bandwidth_bytes 262144
      --mca coll_cloudaware_calibrate_latency_reps 5)

warnings() { grep -c "coll:cloudaware: warning:" "$TEST_LOG"; }
# run NAME DIR WARNINGS [PATTERN]: a correct job with the cache in DIR and exactly WARNINGS
# warning lines (the one matching PATTERN).
run() {
    local name=$1 dir=$2 nwarn=$3 pat=${4:-}
    ca_mpirun 6 "${base[@]}" --mca coll_cloudaware_cache_dir "$dir" "$prog" 5 >/dev/null \
        || fail "$name: calib_check failed"
    expect_in_log "calib_check: 6 ranks, .* 0 failures"
    [ "$(warnings)" -eq "$nwarn" ] || fail "$name: expected $nwarn warning(s), got $(warnings)"
    [ -z "$pat" ] || expect_in_log "coll:cloudaware: warning: .*$pat"
}
measured() {   # NAME: the job measured (no cache hit)
    expect_in_log "calibration: measured 3 pairs"
    ! grep -q "calibration: cache hit" "$TEST_LOG" || fail "$1: unexpected cache hit"
}
hit() {        # NAME: the job measured nothing, the entry served
    expect_in_log "calibration: cache hit for 3 nodes"
    ! grep -q "calibration: measured" "$TEST_LOG" || fail "$1: measured despite the entry"
}
valid_entry() {   # NAME PATH: a regular matrix file of ours, 0600
    [ -f "$2" ] && [ ! -L "$2" ] || fail "$1: $2 is not a regular file"
    [ "$(stat -c %u:%a "$2")" = "$(id -u):600" ] || fail "$1: $2 is not ours with mode 0600"
    grep -q "^cloudaware-matrix 5" "$2" || fail "$1: $2 is not a matrix file (version 5)"
}

# The entry's name for this node set, from a first run.
run "first run" "$work/ref" 0
measured "first run"
entry=$(cd "$work/ref" && ls cloudaware-*.matrix) || fail "no cache entry written"
[ "$(stat -c %a "$work/ref")" = 700 ] || fail "cache directory is not 0700"
valid_entry "first run" "$work/ref/$entry"
run "second run" "$work/ref" 0
hit "second run"
echo "ok: entry $entry written and hit"

# 1. A symbolic link in the middle of the path (only the last component used to be checked), and
#    one hidden by a trailing slash: refused, one warning, nothing written through the link.
mkdir -m 700 "$work/real" "$work/real2"
ln -s real "$work/parent-link"
run "symlinked parent" "$work/parent-link/cache" 1 \
    "cache directory .*/parent-link is a symbolic link (refused)"
measured "symlinked parent"
[ ! -e "$work/real/cache" ] || fail "symlinked parent: the cache was created through the link"
ln -s real2 "$work/dir-link"
run "symlinked directory with a trailing slash" "$work/dir-link/" 1 "symbolic link (refused)"
[ -z "$(ls -A "$work/real2")" ] || fail "trailing slash: an entry was written through the link"
echo "ok: symbolic links in the directory's path are refused"

# 2. Directories writable by others, or not ours: refused, nothing written there.
mkdir "$work/open" && chmod 777 "$work/open"
run "world-writable directory" "$work/open" 1 "cache directory .*group or world writable (refused)"
measured "world-writable directory"
[ -z "$(ls -A "$work/open")" ] || fail "world-writable directory: written into"
if [ "$(id -u)" = 0 ]; then
    mkdir -m 700 "$work/foreign" && chown nobody "$work/foreign"
    run "foreign directory" "$work/foreign" 1 "cache directory .*not owned by this user (refused)"
    [ -z "$(ls -A "$work/foreign")" ] || fail "foreign directory: written into"
    echo "ok: world-writable and foreign directories are refused"
else
    echo "ok: world-writable directory refused (foreign directory: needs root, skipped)"
fi

# 3. An entry from the future is stale: measured again and rewritten, then hit.
cp -a "$work/ref" "$work/future"
touch -d '+1 hour' "$work/future/$entry"
run "future mtime" "$work/future" 1 "cache entry .*is stale (modified [0-9]* s in the future)"
measured "future mtime"
[ "$(stat -c %Y "$work/future/$entry")" -le $(( $(date +%s) + 60 )) ] \
    || fail "future mtime: entry not rewritten"
run "after future mtime" "$work/future" 0
hit "after future mtime"
echo "ok: an entry from the future is re-measured"

# 4. A planted symbolic link as the entry: refused once, replaced after measuring (its target
#    untouched), and the next job hits the new entry.
mkdir -m 700 "$work/planted"
echo "not yours" >"$work/target"
ln -s "$work/target" "$work/planted/$entry"
run "planted symlink entry" "$work/planted" 1 "cache entry .*is a symbolic link (refused)"
measured "planted symlink entry"
valid_entry "planted symlink entry" "$work/planted/$entry"
[ "$(cat "$work/target")" = "not yours" ] || fail "planted symlink entry: target written"
run "after planted symlink" "$work/planted" 0
hit "after planted symlink"
echo "ok: a planted symbolic link entry is replaced, its target untouched"

# 5. A FIFO as the entry: no hang (open is non-blocking), one warning, replaced.
mkdir -m 700 "$work/fifo"
mkfifo "$work/fifo/$entry"
start=$(date +%s)
run "FIFO entry" "$work/fifo" 1 "cache entry .*is not a regular file (refused)"
[ $(( $(date +%s) - start )) -lt 120 ] || fail "FIFO entry: took too long"
measured "FIFO entry"
valid_entry "FIFO entry" "$work/fifo/$entry"
run "after FIFO entry" "$work/fifo" 0
hit "after FIFO entry"
echo "ok: a FIFO entry does not hang and is replaced"

# 6. An entry of another owner (only root can plant one): refused, replaced.
if [ "$(id -u)" = 0 ]; then
    cp -a "$work/ref" "$work/owner"
    chown nobody "$work/owner/$entry"
    run "foreign entry" "$work/owner" 1 "cache entry .*not owned by this user"
    measured "foreign entry"
    valid_entry "foreign entry" "$work/owner/$entry"
    echo "ok: a foreign entry is replaced"
fi

# 7. Leftover temporary files of a crashed writer: removed once older than the documented bound
#    (one hour), a young one (a writer at work) and other files kept.
mkdir -m 700 "$work/left"
old="$entry.tmp.dead01" young="$entry.tmp.live01"
echo partial >"$work/left/$old"
touch -d '2 hours ago' "$work/left/$old"
echo partial >"$work/left/$young"
echo mine >"$work/left/notes.tmp.1"
touch -d '2 hours ago' "$work/left/notes.tmp.1"
run "leftover temporary file" "$work/left" 0
measured "leftover temporary file"
[ ! -e "$work/left/$old" ] || fail "leftover temporary file not removed"
[ -e "$work/left/$young" ] || fail "a young temporary file was removed"
[ -e "$work/left/notes.tmp.1" ] || fail "a file not named by the writer was removed"
valid_entry "leftover temporary file" "$work/left/$entry"
expect_in_log "cache: removed 1 leftover temporary file"
echo "ok: leftover temporary files are removed"

echo "PASS: cache directory and entry attacks"
