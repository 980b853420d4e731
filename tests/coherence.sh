#!/bin/sh
# A file's mappings and its read(2), write(2) and truncate agree under the
# pager, as in the kernel's one page cache (docs/files.md, "Coherence"):
# self-verifying modes of examples/verify, python3-lmdb and sqlite3 in WAL
# mode across processes, writers outside the pager, shared memory. Budgets
# below each load's size, so pages are evicted and refaulted in between;
# every output is compared with a native run's. Root, as daemon.sh.
set -u
plan=32
. "$top_srcdir/tests/daemon-lib.sh"
PY=/usr/bin/python3
LMDB="$top_srcdir/tests/lmdb-rounds.py"
SQL="$top_srcdir/tests/sqlite-rounds.py"
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/pager-coherence.XXXXXX")
trap '[ -n "${KEEP_LOG:-}" ] && cp "$log" "$KEEP_LOG"; cleanup; rm -rf "$dir"' EXIT

# ---- verify's file modes: each word checked -------------------------------
start_daemon 8M -v || skip_rest "the daemon did not start: $(tail -3 "$log")"
steal0=$(stat_of pgsteal_file)
for t in fwrite fread fgrow fremap fmoves ftrunc fraw fwb fredirty fstress; do
	native=$("$VERIFY" --mb 16 --file "$dir/native" $t 2>&1)
	out=$(prun "$VERIFY" --mb 16 --file "$dir/f" $t 2>&1)
	check "verify $t: 16 MiB in 8 MiB, every word as natively ($(echo "$native" | tail -1))" \
		"$([ "$out" = "$native" ]; echo $?)" "$out"
done
# One process through several modes: its seccomp listener lives for all of
# them. A listener's poll can say EPOLLERR while it lives (the kernel's
# seccomp_notify_poll() with the daemon's io_uring task work pending); the
# daemon once dropped it then, and the rest of the run's notified writes
# failed with ENOSYS (fraw read stale words; 3 runs of 4, with the agent's
# moves).
out=$(prun "$VERIFY" --mb 32 --passes 2 --file "$dir/seq" \
	fremap fmoves mapbusy advise ftrunc fraw 2>&1)
check "verify fremap fmoves mapbusy advise ftrunc fraw in one process, 32 MiB in 8 MiB: every word right (pager_notify_epollerr $(stat_of pager_notify_epollerr))" \
	$? "$(echo "$out" | tail -5)"
# Two writers from evicted memory at once: a client's write(2) holds the
# file's lock while its source faults; a write-back waiting for that lock
# must not keep memory from the fault (it hung 1 round in 3).
hung=0
fwb() { timeout -k 5 30 "$PAGER" run --socket "$sock" -- "$VERIFY" --mb 16 "$@" fwb; }
for round in 1 2 3 4 5; do
	fwb --seed $round --file "$dir/w1" >"$dir/w1.out" 2>&1 &
	w1=$!
	fwb --seed $round --file "$dir/w2" >"$dir/w2.out" 2>&1
	r2=$?
	wait $w1
	r1=$?
	[ $r1 = 0 ] && [ $r2 = 0 ] || hung=$((hung + 1))
done
check "two verify fwb at once, 5 rounds in 8 MiB: none hung or failed ($hung)" \
	"$hung" "$(tail -2 "$dir/w1.out" "$dir/w2.out")"
steal=$(($(stat_of pgsteal_file) - steal0))
check "their file pages were evicted and refaulted meanwhile ($steal stolen)" \
	"$([ "$steal" -gt 10000 ]; echo $?)"
check "the raw system calls and stdio writes of fraw handed the file back" \
	"$(grep -q 'handed back to the kernel: written by process .* past the shim' "$log"; echo $?)" \
	"$(grep 'handed back' "$log" | tail -3)"

# ---- a writer outside the pager ------------------------------------------------
# foutside waits for a line before each check; fstamp, run natively (no
# shim, no filter), is the outsider: first of a file the client maps
# read-only (a lease), then of one it writes too (fanotify).
mkfifo "$dir/go"
prun "$VERIFY" --mb 16 --file "$dir/out" foutside <"$dir/go" >"$dir/fo" 2>&1 &
fo=$!
exec 7>"$dir/go"
wait_line() { for _ in $(seq 200); do grep -q "$1" "$dir/fo" && return 0; sleep 0.05; done; return 1; }
wait_line "generation 2" && "$VERIFY" --mb 16 --file "$dir/out" --passes 2 fstamp >/dev/null
echo go >&7
wait_line "generation 4" && "$VERIFY" --mb 16 --file "$dir/out" --passes 4 fstamp >/dev/null
echo go >&7
exec 7>&-
wait "$fo"
rc=$?
check "verify foutside: an outsider's writes seen at once, sealed and watched ($rc)" \
	"$([ $rc = 0 ] && grep -q 'foutside ok' "$dir/fo"; echo $?)" "$(cat "$dir/fo")"
check "the lease break handed the sealed file back" \
	"$(grep -q 'handed back to the kernel: opened for writing outside the pager' "$log"; echo $?)"
check "the outsider's open handed the watched file back" \
	"$(grep -q 'handed back to the kernel: opened by process' "$log"; echo $?)"
# coreutils' truncate opens with O_NONBLOCK: a lease held would make that
# open fail (EAGAIN) where natively it succeeds. The mapper then reads the
# first page's new bytes and gets SIGBUS past the new end, as natively.
MAPW="$top_srcdir/tests/map-rewrite.py"
truncated() {	# truncated RUNNER...: the mapper's output, truncate's status
	f=$dir/tr.$1
	shift
	seq 1 5000 >"$f"
	rm -f "$dir/trgo"
	mkfifo "$dir/trgo"
	"$@" $PY "$MAPW" "$f" <"$dir/trgo" >"$dir/tr.out" 2>/dev/null &
	m=$!
	exec 8>"$dir/trgo"
	for _ in $(seq 200); do grep -q mapped "$dir/tr.out" && break; sleep 0.05; done
	truncate -s 4096 "$f" 2>"$dir/tr.err"
	t=$?
	printf 'hello, page zero' | dd of="$f" conv=notrunc status=none
	echo go >&8
	exec 8>&-
	wait $m
	echo "mapper $? truncate $t $(cat "$dir/tr.err")"
	cat "$dir/tr.out"
}
want=$(truncated native env)
got=$(truncated pager prun)
check "truncate -s 4096 outside the pager of a file a client maps: it succeeds, the mapper sees the new bytes and SIGBUS past the end, as natively" \
	"$([ "$got" = "$want" ]; echo $?)" "$got / $want"
check "the outsider's open for writing was held, not refused: the file was handed back first" \
	"$(grep -q 'handed back to the kernel: opened for writing outside the pager (process' "$log"; echo $?)"
# Rewrites in place by truncate-and-write while a process maps the file:
# every mapper reads the new bytes (SIGBUS past a shorter end), as
# natively. sort -o opens its output, dup2s it onto 1 and writes there
# through stdio; a shell's > does the same for cat; python's open(w)
# truncates on open; truncate then >> truncates, then appends; mv
# renames another file over it (the mapper keeps the old inode).
rewrites() {	# rewrites RUNNER...: the mapper's output for each rewrite
	for k in 1 2 3 4 5; do
		f=$dir/rw.$k
		seq 5000 -1 1 >"$f"
		case $k in
		1) set -- sort -o "$f" "$f" ;;
		2) set -- sh -c 'sort -r "$1" >"$1.t"; cat "$1.t" >"$1"' sh "$f" ;;
		3) set -- $PY -c 'import sys; open(sys.argv[1], "w").write("new\n" * 6000)' "$f" ;;
		4) set -- sh -c 'truncate -s 0 "$1"; seq 2 3001 >>"$1"' sh "$f" ;;
		5) set -- sh -c 'sort "$1" >"$1.t"; mv "$1.t" "$1"' sh "$f" ;;
		esac
		out=$($RUNNER $PY "$MAPW" "$f" "$@" 2>&1; echo "status $?")
		echo "rewrite $k: $(echo "$out" | grep -v '^Traceback\|^  \|^Bus error' | tr '\n' ' ')"
	done
}
want=$(RUNNER=env rewrites)
got=$(RUNNER=prun rewrites)
check "sort -o, a shell's >, open(w), truncate then >>, mv over: each rewrite inside the pager of a file a client maps is what the mapper reads, as natively" \
	"$([ "$got" = "$want" ] && [ "$(echo "$want" | grep -c ' then ')" = 5 ]; echo $?)" "$got / $want"
check "sort -o's and the shell's output on descriptor 1 handed the file back (unfiltered writes)" \
	"$(grep -q 'through its descriptor 1, whose writes the pager does not see' "$log"; echo $?)"
outside() {	# outside RUNNER...: sort -o outside the pager of a mapped file
	f=$dir/ro.$1
	shift
	seq 5000 -1 1 >"$f"
	rm -f "$dir/rogo"
	mkfifo "$dir/rogo"
	"$@" $PY "$MAPW" "$f" <"$dir/rogo" >"$dir/ro.out" 2>/dev/null &
	m=$!
	exec 8>"$dir/rogo"
	for _ in $(seq 200); do grep -q mapped "$dir/ro.out" && break; sleep 0.05; done
	sort -o "$f" "$f"
	sh -c 'sort -r "$1" >"$1.t"; cat "$1.t" >"$1"' sh "$f"
	echo go >&8
	exec 8>&-
	wait $m
	echo "mapper $?"
	cat "$dir/ro.out"
}
want=$(outside native env)
got=$(outside pager prun)
check "sort -o and a shell's > outside the pager over a file a client maps: the mapper reads the new bytes, as natively" \
	"$([ "$got" = "$want" ]; echo $?)" "$got / $want"
stop_daemon

# ---- python3-lmdb ----------------------------------------------------------------
if ! $PY -c 'import lmdb' 2>/dev/null; then
	for _ in 1 2 3 4; do skip_one "no python3-lmdb here (Debian package python3-lmdb)"; done
else
	want=$($PY "$LMDB" single "$dir/lmn" 4 30000 2>&1)
	start_daemon 32M || skip_rest "the daemon did not start"
	got=$(prun $PY "$LMDB" single "$dir/lm" 4 30000 2>&1)
	check "python3-lmdb, 4 rounds of 30000 puts then gets, in 32M: as natively ($got)" \
		"$([ "$got" = "$want" ]; echo $?)" "$got / $want"
	stop_daemon
	# Writer and reader processes under one daemon; each a pipe's end,
	# the reader's stderr the writer's stdin.
	mkfifo "$dir/lmgo"
	$PY "$LMDB" writer "$dir/lmn2" 3 100000 <"$dir/lmgo" |
		$PY "$LMDB" reader "$dir/lmn2" 100000 >"$dir/lm.want" 2>"$dir/lmgo"
	start_daemon 24M || skip_rest "the daemon did not start"
	steal0=$(stat_of pgsteal_file)
	prun $PY "$LMDB" writer "$dir/lm2" 3 100000 <"$dir/lmgo" |
		prun $PY "$LMDB" reader "$dir/lm2" 100000 >"$dir/lm.got" 2>"$dir/lmgo"
	steal=$(($(stat_of pgsteal_file) - steal0))
	check "python3-lmdb writer and reader processes, 31 MB in 24M: as natively ($(tail -1 "$dir/lm.got"))" \
		"$(cmp -s "$dir/lm.got" "$dir/lm.want"; echo $?)" "$(cat "$dir/lm.got")"
	check "and the database's pages were evicted and refaulted ($steal stolen)" \
		"$([ "$steal" -gt 1000 ]; echo $?)"
	# The reader outside the pager.
	rm -rf "$dir/lm2"
	prun $PY "$LMDB" writer "$dir/lm2" 3 100000 <"$dir/lmgo" |
		$PY "$LMDB" reader "$dir/lm2" 100000 >"$dir/lm.got" 2>"$dir/lmgo"
	check "python3-lmdb with the reader outside the pager: as natively" \
		"$(cmp -s "$dir/lm.got" "$dir/lm.want"; echo $?)" "$(cat "$dir/lm.got")"
	stop_daemon
fi

# ---- sqlite3, WAL, mmap_size ---------------------------------------------------------
mkfifo "$dir/sqgo"
sqlite_pair() {	# WRITER-PREFIX READER-PREFIX DB OUT
	rm -f "$3" "$3-wal" "$3-shm"
	$1 $PY "$SQL" writer "$3" 4 50000 <"$dir/sqgo" |
		$2 $PY "$SQL" reader "$3" 50000 >"$4" 2>"$dir/sqgo"
}
sqlite_pair "" "" "$dir/sqn.db" "$dir/sq.want"
start_daemon 24M || skip_rest "the daemon did not start"
sqlite_pair prun prun "$dir/sq.db" "$dir/sq.got"
check "sqlite3 WAL, writer and reader processes under the pager: as natively ($(tail -1 "$dir/sq.got"))" \
	"$(cmp -s "$dir/sq.got" "$dir/sq.want"; echo $?)" "$(cat "$dir/sq.got")"
sqlite_pair prun "" "$dir/sq.db" "$dir/sq.got"
check "sqlite3 WAL, the reader outside the pager: as natively" \
	"$(cmp -s "$dir/sq.got" "$dir/sq.want"; echo $?)" "$(cat "$dir/sq.got")"
sqlite_pair "" prun "$dir/sq.db" "$dir/sq.got"
check "sqlite3 WAL, the writer outside the pager: as natively" \
	"$(cmp -s "$dir/sq.got" "$dir/sq.want"; echo $?)" "$(cat "$dir/sq.got")"

# ---- shared memory stays the kernel's ----------------------------------------------
shm='import mmap, os
fd = os.memfd_create("x"); os.ftruncate(fd, 1 << 20)
m = mmap.mmap(fd, 1 << 20); m[0:5] = b"hello"
os.pwrite(fd, b"world", 10)
if os.fork() == 0:
    m[20:23] = b"sub"; os._exit(0)
os.wait()
print(m[0:5], m[10:15], os.pread(fd, 3, 20))'
want=$($PY -c "$shm" 2>&1)
got=$(prun $PY -c "$shm" 2>&1)
check "a memfd shared by mapping, pwrite and a fork child: as natively ($got)" \
	"$([ "$got" = "$want" ]; echo $?)" "$got / $want"

# ---- the write(2) of a file nobody maps: nothing asked --------------------------
writes='import os
fd = os.open(os.environ["F"], os.O_CREAT | os.O_RDWR | os.O_TRUNC)
for i in range(20000): os.write(fd, b"x" * 100)
print(os.fstat(fd).st_size)'
got=$(F="$dir/plain" prun $PY -c "$writes" 2>&1)
check "20000 write(2)s to a file nobody maps: the right size ($got)" \
	"$([ "$got" = 2000000 ]; echo $?)" "$got"
stop_daemon
check "the daemon ended cleanly after all of it" "$(grep -q 'error' "$log"; [ $? = 1 ]; echo $?)" \
	"$(grep error "$log" | head -3)"
