#!/bin/sh
# File pages under the pager: its own page cache (a memfd per inode), on
# real programs and real files. Needs what tests/daemon.sh needs; files
# are made in a directory of the test's own on the disk ($TMPDIR or
# /var/tmp), where O_DIRECT works.
set -u
plan=25
. "$top_srcdir/tests/daemon-lib.sh"
STREAM="$top_builddir/examples/mmap-stream"
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/pager-files.XXXXXX")
trap '[ -n "${KEEP_LOG:-}" ] && cp "$log" "$KEEP_LOG"; cleanup; umount "$dir/small" 2>/dev/null; rm -rf "$dir"' EXIT

# ---- whole-file readers: b3sum maps the file --------------------------------
start_daemon 16M || skip_rest "the daemon did not start: $(tail -3 "$log")"
head -c 48M /dev/urandom >"$dir/big"
if command -v b3sum >/dev/null; then
	want=$(b3sum "$dir/big" 2>&1)
	pin0=$(stat_of pgpgin)
	got=$(prun b3sum "$dir/big" 2>&1)
	pin1=$(stat_of pgpgin)
	check "b3sum of a file 3x the budget: the native digest" \
		"$([ "$got" = "$want" ]; echo $?)" "$got / $want"
	check "and the file came through the pager's cache (pgpgin +$((pin1 - pin0)) KiB)" \
		"$([ $((pin1 - pin0)) -ge 49152 ]; echo $?)"
else
	skip_one "no b3sum here (Debian package b3sum)"
	skip_one "no b3sum here (Debian package b3sum)"
fi

# ---- self-verifying workloads on files, under pressure ------------------------
out=$(prun "$VERIFY" --mb 48 --file "$dir/shared" fshared 2>&1)
check "verify fshared: 48 MiB MAP_SHARED in 16 MiB, written back on msync and munmap" $? "$out"
"$VERIFY" --mb 48 --file "$dir/native" fshared >/dev/null 2>&1
a=$(sha256sum <"$dir/shared")
b=$(sha256sum <"$dir/native")
check "sha256sum of the file written under the pager is the native run's" \
	"$([ "$a" = "$b" ]; echo $?)" "$a / $b"
cmp -s "$dir/shared" "$dir/native"
check "cmp finds them equal" $?
rm -f "$dir/shared" "$dir/native"
out=$(prun "$VERIFY" --mb 48 --file "$dir/private" fprivate 2>&1)
check "verify fprivate: copy-on-write pages are anon, the file unchanged" $? "$out"
out=$(prun "$VERIFY" --mb 32 --file "$dir/cow" fcow 2>&1)
check "verify fcow: a page copied on write while reclaim clears its young bit keeps the write" $? "$out"
out=$("$VERIFY" --mb 32 --file "$dir/pages" fpages 2>&1) &&
	out=$(prun "$VERIFY" --mb 32 --file "$dir/pages" fpages 2>&1)
check "verify fpages: remap_file_pages rearranges a shared mapping under reclaim, natively and under the pager" $? "$out"
out=$("$VERIFY" --file "$dir/badptr" fbadptr 2>&1) &&
	out=$(prun "$VERIFY" --file "$dir/badptr" fbadptr 2>&1)
check "verify fbadptr: bad offset and iovec pointers to the calls the shim reads get EFAULT, not SIGSEGV, natively and under the pager" $? "$out"
# A shared mapping larger than its file system (4 MiB of ext4): natively
# SIGBUS at the write fault that cannot reserve blocks; under the pager
# the daemon's write-back fails, and msync(MS_SYNC) or fsync must say so.
mkdir "$dir/small"
if truncate -s 4M "$dir/small.img" && mkfs.ext4 -q -F "$dir/small.img" 2>/dev/null &&
   mount -o loop "$dir/small.img" "$dir/small" 2>/dev/null; then
	"$VERIFY" --mb 8 --file "$dir/small/f" fnospc >/dev/null 2>&1
	nrc=$?
	rm -f "$dir/small/f"
	out=$(prun "$VERIFY" --mb 8 --file "$dir/small/f" fnospc 2>&1)
	rc=$?
	check "verify fnospc: 8 MiB written through a mapping onto 4 MiB of disk: an error, never silence (natively status $nrc; $(echo "$out" | grep -m1 'msync'))" \
		"$([ $rc = 0 ] && echo "$out" | grep -q 'msync No space left on device, fsync No space left'; echo $?)" "$out"
	umount "$dir/small"
else
	skip_one "no loop-mounted ext4 here (needs root, mkfs.ext4 and a loop device)"
fi
out=$(prun "$VERIFY" --mb 32 --file "$dir/two" ftwo 2>&1)
check "verify ftwo: two processes' mappings share one page cache" $? "$out"
out=$(prun "$VERIFY" --mb 16 --file "$dir/clone" clone 2>&1)
check "verify clone: a raw clone(2)'s child maps the parent's file and reads both memories right" $? "$out"
stop_daemon

# ---- one page cache for all: counted once, refaults seen by the other ---------
start_daemon 64M || skip_rest "the daemon did not start: $(tail -3 "$log")"
head -c 8M /dev/urandom >"$dir/hot"
head -c 4K /dev/urandom >"$dir/tiny"
files() { echo $(($(stat_of nr_active_file) + $(stat_of nr_inactive_file))); }
prun "$STREAM" --hot "$dir/hot" --touches 1 "$dir/tiny" >/dev/null
one=$(files)
maj0=$(stat_of pgmajfault)
prun "$STREAM" --hot "$dir/hot" --touches 1 "$dir/tiny" >/dev/null
two=$(files)
maj1=$(stat_of pgmajfault)
check "a second process mapping the file finds it cached: $one then $two file pages, +$((maj1 - maj0)) major faults" \
	"$([ "$one" -ge 2048 ] && [ "$two" -le $((one + 16)) ] &&
	   [ $((maj1 - maj0)) -le 2 ]; echo $?)"
# A holds the file mapped (its inode stays in use) while reclaim evicts
# the pages; B then reads the file.
rm -f "$tmp/held"
prun python3 -c '
import mmap, sys, time
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
s = sum(m[i] for i in range(0, len(m), 4096))
open(sys.argv[2], "w").write("held")
time.sleep(4)' "$dir/hot" "$tmp/held" &
holder=$!
# Reclaim once A holds every page (its start is slow on a loaded machine).
for _ in $(seq 100); do [ -s "$tmp/held" ] && break; sleep 0.1; done
sleep 0.5
"$PAGER" reclaim --socket "$sock" 24M >/dev/null 2>&1
ref0=$(stat_of workingset_refault_file)
prun "$STREAM" --hot "$dir/hot" --touches 1 "$dir/tiny" >/dev/null
ref1=$(stat_of workingset_refault_file)
wait $holder
check "what reclaim took from one process's mapping, another refaults (workingset_refault_file +$((ref1 - ref0)))" \
	"$([ $((ref1 - ref0)) -ge 1024 ]; echo $?)"
stop_daemon

# ---- seed 001: a stream through mmap next to a hot set --------------------------
head -c 128M /dev/urandom >"$dir/stream"
head -c 4M /dev/urandom >"$dir/exec"
stream_run() {	# on|off: "pgactivate refaults exec_resident_pct"
	start_daemon 32M --set use_once_mapped="$1" || return 1
	res=$(prun "$STREAM" --hot "$dir/hot" --exec "$dir/exec" "$dir/stream" |
	      awk '$1 == "exec_resident_pct" { print $2 }')
	echo "$(stat_of pgactivate) $(stat_of workingset_refault_file) $res"
	stop_daemon
}
set -- $(stream_run on) $(stream_run off)
if [ $# -ne 6 ]; then
	not_ok "use_once_mapped=on: the stream is not activated" "$*"
	not_ok "use_once_mapped=on: the hot set refaults less than off" "$*"
	not_ok "use_once_mapped=on: the executable mapping stays resident" "$*"
else
	check "use_once_mapped=on activates $1 pages (the executable's 1024), off $4 (the stream's too)" \
		"$([ "$1" -le 1200 ] && [ "$4" -ge $((10 * $1)) ]; echo $?)"
	check "the hot set refaults less with on ($2) than off ($5)" \
		"$([ "$2" -lt "$5" ]; echo $?)"
	check "the executable mapping stays resident under the stream with on (${3}%)" \
		"$(awk -v r="$3" 'BEGIN { exit !(r >= 90) }'; echo $?)"
fi

# ---- madvise: a mapping's recency and readahead ---------------------------------
# The daemon hears MADV_SEQUENTIAL, _RANDOM and _NORMAL through the seccomp
# listener. A mapping advised so has no recency (vma_has_recency()): with
# use_once_mapped off, the stream advised sequential is activated no more
# than with on (the executable's pages only).
want=$("$STREAM" "$dir/stream" | awk '$1 == "checksum" { print $2 }')
start_daemon 32M --set use_once_mapped=off
a0=$(stat_of pgactivate)
got=$(prun "$STREAM" --advice sequential --exec "$dir/exec" "$dir/stream" |
      awk '$1 == "checksum" { print $2 }')
a1=$(stat_of pgactivate)
stop_daemon
check "MADV_SEQUENTIAL on the stream, use_once_mapped off: $((a1 - a0)) activations (the executable's 1024), checksum $got as natively" \
	"$([ $((a1 - a0)) -le 1200 ] && [ "$got" = "$want" ]; echo $?)"
# Readahead (do_sync_mmap_readahead()): none for a random mapping, a
# window from the fault on for a sequential one, each on a fresh daemon.
head -c 32M "$dir/stream" >"$dir/s32"
want=$("$STREAM" "$dir/s32" | awk '$1 == "checksum" { print $2 }')
advised_run() {	# ADVICE: "file_ra pgmajfault checksum"
	start_daemon 64M || return 1
	r0=$(stat_of file_ra)
	m0=$(stat_of pgmajfault)
	sum=$(prun "$STREAM" --advice "$1" "$dir/s32" |
	      awk '$1 == "checksum" { print $2 }')
	echo "$(($(stat_of file_ra) - r0)) $(($(stat_of pgmajfault) - m0)) $sum"
	stop_daemon
}
set -- $(advised_run random)
check "MADV_RANDOM: no readahead (file_ra +${1:-?}), a major fault a page (+${2:-?} of 8192), checksum as natively" \
	"$([ "${1:-1}" -eq 0 ] && [ "${2:-0}" -ge 8192 ] && [ "${3:-}" = "$want" ]; echo $?)"
set -- $(advised_run sequential)
check "MADV_SEQUENTIAL: read ahead (file_ra +${1:-?}), ${2:-?} major faults, checksum as natively" \
	"$([ "${1:-0}" -ge 8000 ] && [ "${2:-99999}" -le 64 ] && [ "${3:-}" = "$want" ]; echo $?)"

# ---- bad input: kernel-like errors, never a hang -------------------------------
start_daemon 16M || skip_rest "the daemon did not start: $(tail -3 "$log")"
head -c 1M /dev/urandom >"$dir/trunc"
trunc_py='
import mmap, os, sys
f = open(sys.argv[1], "r+b")
m = mmap.mmap(f.fileno(), 0)
os.truncate(sys.argv[1], 4096)
print(m[0] >= 0, flush=True)
print(m[700000])'
native=$(python3 -c "$trunc_py" "$dir/trunc" 2>/dev/null; echo "rc=$?")
head -c 1M /dev/urandom >"$dir/trunc"
got=$(prun python3 -c "$trunc_py" "$dir/trunc" 2>/dev/null; echo "rc=$?")
check "a file truncated under its mapping: SIGBUS past the end, as natively ($got)" \
	"$([ "$got" = "$native" ]; echo $?)" "$got / $native"
odd_py='
import mmap, os, sys
def tryit(what, fd, length, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ):
    try:
        m = mmap.mmap(fd, length, flags=flags, prot=prot)
        print(what, "mapped", m[0])
    except (OSError, ValueError) as e:
        print(what, type(e).__name__, getattr(e, "errno", ""))
tryit("write-only file", os.open(sys.argv[1], os.O_WRONLY), 4096)
tryit("directory", os.open(sys.argv[2], os.O_RDONLY), 4096)
tryit("/dev/zero", os.open("/dev/zero", os.O_RDWR), 4096, mmap.MAP_PRIVATE)
r, w = os.pipe()
tryit("pipe", r, 4096)
tryit("read-only file, shared writable", os.open(sys.argv[1], os.O_RDONLY),
      4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)'
native=$(python3 -c "$odd_py" "$dir/trunc" "$dir" 2>&1)
got=$(prun python3 -c "$odd_py" "$dir/trunc" "$dir" 2>&1)
check "write-only file, directory, device, pipe: the kernel's answers" \
	"$([ "$got" = "$native" ]; echo $?)" "$got
--- native:
$native"
out=$(prun "$VERIFY" --mb 8 --file "$dir/after" fprivate 2>&1)
check "and the daemon goes on serving files" $? "$out"
i0=$(stat_of nr_inodes)
out=$(PAGER_SHIM_TEXT=all prun python3 -c 'import sqlite3, decimal, json; print(sqlite3.connect(":memory:").execute("select 6*7").fetchone()[0])' 2>&1)
i1=$(stat_of nr_inodes)
check "libraries loaded at start and by dlopen come through the page cache ($((i1 - i0)) more inodes), python3 right ($out)" \
	"$([ "$out" = 42 ] && [ $((i1 - i0)) -ge 3 ]; echo $?)" "$out"
stop_daemon
check "the daemon stopped cleanly" $?
