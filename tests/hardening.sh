#!/bin/sh
# Hardening (issue 6) on real processes: swap checksums, the daemon killed
# at random moments, clients killed at random moments leaking nothing,
# the daemon's confinement. Needs what daemon.sh needs; skips otherwise.
set -u
plan=10
. "$top_srcdir/tests/daemon-lib.sh"

# A python3 program that fills 32 MiB (each page holds its number), says
# "filled", waits for a line on stdin, and counts the pages that changed.
# Its memory comes through the mmap symbol, adopted before it is touched
# (malloc's would be adopted shortly after, by the seccomp notification).
FILLER='
import mmap, sys
n = 32 << 20
b = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE)
for i in range(0, n, 4096):
    b[i:i + 8] = (i // 4096).to_bytes(8, "little")
print("filled", flush=True)
sys.stdin.readline()
bad = sum(1 for i in range(0, n, 4096)
          if int.from_bytes(b[i:i + 8], "little") != i // 4096)
print("pages wrong", bad, flush=True)'

descendants() {	# PID: every process below it
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}

wait_for() {	# FILE TEXT: up to 60 s
	for _ in $(seq 600); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# ---- swap checksums ---------------------------------------------------------
start_daemon 8M --swap "$tmp/swap" ||
	skip_rest "the daemon did not start: $(tail -3 "$log")"
st=$(grep -E '^(Seccomp|NoNewPrivs):' "/proc/$daemon_pid/status" | tr -s '\t\n' '  ')
check "the running daemon is confined: $st" \
	"$(echo "$st" | grep -q 'NoNewPrivs: 1 Seccomp: 2'; echo $?)" "$st"
mkfifo "$tmp/in"
prun python3 -c "$FILLER" <"$tmp/in" >"$tmp/filler.out" 2>&1 &
filler=$!
exec 3>"$tmp/in"
wait_for "$tmp/filler.out" filled
out=$(stat_of pswpout)
# Every slot overwritten, as a careless dd onto the swap file would.
size=$(stat -c %s "$tmp/swap")
head -c "$size" /dev/urandom | dd of="$tmp/swap" conv=notrunc,fsync \
	status=none
echo go >&3
exec 3>&-
wait "$filler"
rc=$?
out="pswpout $out, exit $rc: $(cat "$tmp/filler.out")"
check "a swap file changed under the pager: the client is killed with the reason, never handed the wrong data ($(echo "$out" | tr "\n" " " | cut -c1-100))" \
	"$([ "$rc" = 137 ] && grep -q "checksum mismatch" "$tmp/filler.out" &&
	   ! grep -q "pages wrong" "$tmp/filler.out" &&
	   "$PAGER" stat --socket "$sock" >/dev/null; echo $?)" "$out"
stop_daemon

# ---- per-client limits --------------------------------------------------------
start_daemon 4M --set vm.max_map_count=16 || skip_rest "the daemon did not start"
out=$(prun python3 -c '
import mmap
ms = [mmap.mmap(-1, 4096 * 8, flags=mmap.MAP_PRIVATE) for _ in range(300)]
for k, m in enumerate(ms):
    for o in range(0, 4096 * 8, 4096):
        m[o:o + 8] = (k * 8 + o // 4096).to_bytes(8, "little")
bad = sum(int.from_bytes(m[o:o + 8], "little") != k * 8 + o // 4096
          for _ in range(3) for k, m in enumerate(ms)
          for o in range(0, 4096 * 8, 4096))
print("maps", len(ms), "wrong", bad)' 2>&1)
check "300 mappings with vm.max_map_count=16: the rest stay the kernel's, every word right ($out)" \
	"$([ "$out" = "maps 300 wrong 0" ] &&
	   grep -q "its next ones stay the kernel's" "$log"; echo $?)" "$out"
out=$(prun python3 -c '
import mmap
m = mmap.mmap(-1, 128 << 30, flags=mmap.MAP_PRIVATE | 0x4000)  # MAP_NORESERVE
for o in range(0, 128 << 30, 1 << 30):
    m[o:o + 8] = o.to_bytes(8, "little")
print("wrong", sum(int.from_bytes(m[o:o + 8], "little") != o
                   for o in range(0, 128 << 30, 1 << 30)))' 2>&1)
check "a 128 GiB reservation stays the kernel's, the program runs right ($out)" \
	"$([ "$out" = "wrong 0" ] && grep -q "a mapping of 131072 MiB stays" "$log" &&
	   "$PAGER" stat --socket "$sock" >/dev/null; echo $?)" "$out"
out=$(python3 -c '
import socket, sys, time
ss = []
for _ in range(100):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    ss.append(s)
time.sleep(0.5)
refused = 0
for s in ss:
    s.setblocking(False)
    try:
        refused += b"too many connections" in s.recv(100)
    except BlockingIOError:
        pass
print("refused", refused)' "$sock" 2>&1)
check "100 connections from one process: those beyond 64 are refused ($out), the daemon serves on" \
	"$([ "$out" = "refused 36" ] && "$PAGER" stat --socket "$sock" >/dev/null;
	   echo $?)" "$out"
stop_daemon

# ---- peers: the daemon's user and root, and --allow-uid ---------------------
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	asock=/tmp/pager-allow.$$.sock	# where another user can reach it
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	"$PAGER" daemon --mem 8M --socket "$asock" 2>/dev/null &
	apid=$!
	sleep 0.5
	r1=$(as_nobody "$PAGER" stat --socket "$asock" 2>&1 | grep -c '^pgfault ')
	kill "$apid"; wait "$apid" 2>/dev/null
	"$PAGER" daemon --mem 8M --socket "$asock" --allow-uid 65534 2>/dev/null &
	apid=$!
	sleep 0.5
	r2=$(as_nobody "$PAGER" stat --socket "$asock" 2>&1 | grep -c '^pgfault ')
	r3=$(setpriv --reuid=65533 --regid=65533 --clear-groups \
		"$PAGER" stat --socket "$asock" 2>&1 | grep -c '^pgfault ')
	kill "$apid"; wait "$apid" 2>/dev/null
	rm -f "$asock"
	check "another user is refused ($r1), admitted with --allow-uid ($r2), a third still refused ($r3)" \
		"$([ "$r1$r2$r3" = 010 ]; echo $?)"
else
	skip_one "needs root and setpriv"
fi

# ---- clients killed at random moments leak nothing --------------------------
start_daemon 16M || skip_rest "the daemon did not start"
idle_fds=$(ls "/proc/$daemon_pid/fd" | wc -l)
kills=0
for k in $(seq 12); do
	case $((k % 4)) in
	0) t="passes threads" ;;
	1) t="fork" ;;
	2) t="fshared fprivate ftwo" ;;
	3) t="mremap dontneed munmap" ;;
	esac
	# shellcheck disable=SC2086
	prun "$VERIFY" --mb 48 --file "$tmp/kf$k" $t >/dev/null 2>&1 &
	run=$!
	sleep "$(awk -v s="$k$$" 'BEGIN { srand(s); printf "%.2f", 0.3 + rand() * 2 }')"
	# Only this run's: other tests may run verify at the same time.
	victims=$(for d in $(descendants "$run"); do
		[ "$(cat "/proc/$d/comm" 2>/dev/null)" = verify ] && echo "$d"
	done)
	[ -n "$victims" ] && kill -9 $victims && kills=$((kills + 1))
	wait "$run"
	rm -f "$tmp/kf$k"
done
for _ in $(seq 100); do
	[ "$(stat_of clients)" = 0 ] && [ "$(stat_of nr_writeback)" = 0 ] && break
	sleep 0.1
done
"$PAGER" set --socket "$sock" vm.drop_caches=3 >/dev/null
st=$("$PAGER" stat --socket "$sock")
v() { echo "$st" | awk -v k="$1" '$1 == k { print $2 }'; }
fds=$(ls "/proc/$daemon_pid/fd" | wc -l)
out="kills $kills; clients $(v clients) free $(v nr_free_pages)/$(v budget_pages) anon $(v nr_active_anon)+$(v nr_inactive_anon) file $(v nr_active_file)+$(v nr_inactive_file) swap_used $(v swap_used) inodes $(v nr_inodes) fds $fds (idle $idle_fds)"
check "12 clients killed at random moments: pages, swap, memfds and descriptors back to idle ($out)" \
	"$([ "$kills" -ge 8 ] && [ "$(v clients)" = 0 ] &&
	   [ "$(v nr_free_pages)" = "$(v budget_pages)" ] &&
	   [ "$(v nr_active_anon)$(v nr_inactive_anon)" = 00 ] &&
	   [ "$(v nr_active_file)$(v nr_inactive_file)" = 00 ] &&
	   [ "$(v swap_used)" = 0 ] && [ "$(v nr_inodes)" = 0 ] &&
	   [ "$fds" -le "$idle_fds" ]; echo $?)" "$out"
stop_daemon

# ---- an agent's connection breaks in the middle of a fault ------------------
# A client that speaks the protocol itself (the shim's hello, its
# userfaultfd, a mapping) and touches more than the budget before its agent
# is "ready": its faults wait for memory. Then it stops reading its
# connection (SHUT_RD: the daemon's next write there fails with EPIPE, and
# nothing the daemon polls for fires) and says "ready": the faults are
# retried, reclaim arms its pages, and the request for the agent is written
# from inside the fault's allocation. The daemon must survive that.
DEADAGENT='
import ctypes, fcntl, mmap, os, platform, socket, struct, sys, threading, time
nr = {"x86_64": 323, "aarch64": 282}.get(platform.machine())
libc = ctypes.CDLL(None, use_errno=True)
uffd = libc.syscall(nr, os.O_CLOEXEC | os.O_NONBLOCK) if nr else -1
if uffd < 0:
    print("skip: no userfaultfd"); sys.exit(0)
feat = 1 | 1 << 1 | 1 << 2 | 1 << 3 | 1 << 6 | 1 << 8   # as the shim asks
fcntl.ioctl(uffd, 0xC018AA3F, bytearray(struct.pack("QQQ", 0xAA, feat, 0)))
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("r")
def call(line, fds=[]):
    socket.send_fds(s, [line.encode() + b"\n"], fds)
    a = f.readline().strip()
    if a != "ok":
        sys.exit(line + ": " + a)
n = 16 << 20
m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE)
addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
call("hello %d" % os.getpid(), [uffd])
call("map %x %x" % (addr, n))
os.close(uffd)          # the daemon holds the only copy
done = [0]
def touch():
    for i in range(0, n, 4096):
        libc.memset(ctypes.c_void_p(addr + i), 1, 8)  # without the GIL
        done[0] = i + 4096
t = threading.Thread(target=touch)
t.start()
last, t0 = -1, time.time()
while done[0] != last and time.time() - t0 < 1.5:   # until it waits
    last = done[0]
    time.sleep(0.2)
s.shutdown(socket.SHUT_RD)
s.sendall(b"ready\n")
t.join()
print("touched", done[0] >> 20, "MiB")'
start_daemon 4M --swap "$tmp/swap2" || skip_rest "the daemon did not start"
out=$(timeout -k 5 60 python3 -c "$DEADAGENT" "$sock" 2>&1)
for _ in $(seq 50); do
	[ "$(stat_of clients)" = 0 ] && break
	sleep 0.1
done
clients=$(stat_of clients)
stop_daemon
rc=$?
check "an agent's connection broken in the middle of a fault: the daemon serves on and frees the client ($out; clients $clients, daemon exit $rc)" \
	"$([ "$rc" = 0 ] && [ "$clients" = 0 ]; echo $?)" "$out"

# ---- the daemon killed at random moments ------------------------------------
# Each time: a client either finishes right or ends with the fail-stop
# message; none reads zeros or another page's data.
bad=0
details=
for k in $(seq 5); do
	start_daemon 8M || { bad=$((bad + 1)); continue; }
	prun "$VERIFY" --mb 32 --file "$tmp/df$k" passes fork fshared \
		>"$tmp/death$k.out" 2>&1 &
	run=$!
	sleep "$(awk -v s="$k$$" 'BEGIN { srand(s); printf "%.2f", 0.2 + rand() * 3 }')"
	kill -9 "$daemon_pid"
	wait "$daemon_pid" 2>/dev/null
	daemon_pid=
	wait "$run"
	rc=$?
	# and nothing of the run is left (a fork child whose agent had not
	# started waited for ever in madvise for the dead daemon)
	sleep 0.2
	left=$(pgrep -f -- "--file $tmp/df$k " | tr '\n' ' ')
	[ -n "$left" ] && kill -9 $left 2>/dev/null
	if [ -n "$left" ] ||
	   grep -q "wrong\|lost\|read [0-9]*, the file" "$tmp/death$k.out" ||
	   { [ "$rc" != 0 ] && ! grep -q "pager daemon is gone" "$tmp/death$k.out"; } ||
	   { [ "$rc" = 0 ] && ! grep -q "all ok" "$tmp/death$k.out"; }; then
		bad=$((bad + 1))
		details="$details
run $k (status $rc${left:+, left running: $left}): $(tail -3 "$tmp/death$k.out")"
	else
		details="$details
run $k: status $rc"
	fi
	rm -f "$tmp/df$k"
done
check "the daemon SIGKILLed at 5 random moments: each client finished right or stopped with the message" \
	"$bad" "$details"

# ---- the daemon stopped (SIGTERM) under running clients --------------------
# They must not be left waiting for ever on the pages it held: their agents
# see the connection break without a "bye" and stop them, as when it dies.
start_daemon 8M || skip_rest "the daemon did not start"
prun "$VERIFY" --mb 32 --passes 20 passes fork >"$tmp/term.out" 2>&1 &
run=$!
sleep 1.5
kill "$daemon_pid"
wait "$daemon_pid" 2>/dev/null
daemon_pid=
t0=$(date +%s)
wait "$run"
rc=$?
took=$(($(date +%s) - t0))
check "the daemon stopped (SIGTERM) under a running client: it is stopped with the message at once, not left waiting (status $rc, ${took} s)" \
	"$([ "$rc" = 137 ] && [ "$took" -le 5 ] &&
	   grep -q "pager daemon is gone" "$tmp/term.out"; echo $?)" \
	"$(tail -3 "$tmp/term.out")"
