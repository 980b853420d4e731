#!/bin/sh
# Swap in Redis servers (--swap redis://, issue 21) on real processes and
# real redis-server processes on 127.0.0.1, started here: the
# self-verifying workloads and python3 against its native run; then
# fail-stop, never a wrong page: the server killed mid-run, flushed,
# restarted empty, silent (SIGSTOP: redis.timeout_ms), a value changed in
# it; three
# servers with one killed: only the processes whose pages it held stop.
# Needs what daemon.sh needs, and redis-server; skips otherwise.
set -u
plan=19
. "$top_srcdir/tests/daemon-lib.sh"

command -v redis-server >/dev/null && command -v redis-cli >/dev/null ||
	skip_rest "redis-server is not installed"

base=$((20000 + $$ % 20000))
redis_pids=""
trap 'for r in $redis_pids; do kill -9 "$r" 2>/dev/null; done; cleanup' EXIT

start_redis() {	# PORT: a fresh, empty server that keeps nothing on disk
	redis-server --port "$1" --bind 127.0.0.1 --save '' --appendonly no \
		--dir "$tmp" --logfile "$tmp/redis-$1.log" &
	eval "redis_$1=$!"
	redis_pids="$redis_pids $!"
	for _ in $(seq 100); do
		[ "$(redis-cli -p "$1" ping 2>/dev/null)" = PONG ] && return 0
		sleep 0.05
	done
	return 1
}
kill_redis() {	# PORT [SIGNAL]
	eval "kill -${2:-9} \$redis_$1"
	[ "${2:-9}" = 9 ] && eval "wait \$redis_$1" 2>/dev/null
	return 0
}
keys() { redis-cli -p "$1" dbsize; }
wait_keys() {	# PORT N: until the store holds N pages (10 s at most)
	for _ in $(seq 200); do
		[ "$(keys "$1")" -ge "$2" ] && return 0
		sleep 0.05
	done
	return 1
}
# Until the store is empty (10 s at most): a program's keys are deleted
# after it ends, so wait_keys after it could count the last one's and the
# store be killed before the new program's pages were in it (it was then
# OOM-killed, its pages all armed and nowhere to go, not stopped).
wait_empty() {	# PORT
	for _ in $(seq 200); do
		[ "$(keys "$1")" = 0 ] && return 0
		sleep 0.05
	done
	return 1
}
wait_stat() {	# NAME VALUE: until the daemon's counter is VALUE (5 s)
	for _ in $(seq 100); do
		[ "$(stat_of "$1")" = "$2" ] && return 0
		sleep 0.05
	done
	return 1
}
pid_of() {	# PATTERN: the process under the pager that runs it
	for _ in $(seq 100); do
		p=$(pgrep -f "^$VERIFY $1" | head -1)
		[ -n "$p" ] && { echo "$p"; return 0; }
		sleep 0.05
	done
}
server_of() {	# PID: the server its pages go to, once the daemon knows it
	# (pgrep sees the process at its exec, before its shim has said hello)
	for _ in $(seq 200); do
		s=$("$PAGER" stat --socket "$sock" --pid "$1" 2>/dev/null |
			awk '$1 == "redis.server" { print $2 }')
		[ -n "$s" ] && { echo "$s"; return 0; }
		sleep 0.05
	done
}

p1=$base
start_redis "$p1" || skip_rest "redis-server did not start"
start_daemon 8M --swap "redis://127.0.0.1:$p1" --swap-size 512M ||
	skip_rest "the daemon did not start: $(tail -3 "$log")"

# ---- the workloads, every word right ----------------------------------------
for t in passes fork mremap dontneed threads; do
	o0=$(stat_of pswpout)
	out=$(prun "$VERIFY" --mb 32 --threads 4 "$t" 2>&1)
	rc=$?
	out1=$(($(stat_of pswpout) - o0))
	check "redis: verify $t, 32 MiB under 8 MiB, every word right (pswpout +$out1)" \
		"$([ "$rc" = 0 ] && [ "$out1" -gt 4096 ]; echo $?)" "$out"
done
TEXT='
d = {i: "key %d value %s" % (i, "abc" * (i % 7)) for i in range(400000)}
print(sum(len(v) for v in d.values()), sorted(d)[-1], len(d))'
native=$(python3 -c "$TEXT" 2>&1)
out=$(prun python3 -c "$TEXT" 2>&1)
check "redis: python3's output is its native run's, byte for byte" \
	"$([ "$out" = "$native" ]; echo $?)" "native: $native / pager: $out"
st=$("$PAGER" stat --socket "$sock" | grep '^redis\.' | tr '\n' ' ')
check "pager stat shows the store: one server up, SETs and GETs, a mean round trip ($st)" \
	"$(echo "$st" | awk '{ for (i = 1; i < NF; i += 2) v[$i] = $(i + 1) }
		END { exit !(v["redis.servers_up"] == 1 && v["redis.sets"] > 4096 &&
			     v["redis.gets"] > 0 && v["redis.get_rtt_us"] > 0 &&
			     v["redis.failed_reads"] == 0) }'; echo $?)" "$st"
left="$(keys "$p1") $(stat_of swap_used)"
check "every program gone: no key left in the store, no slot used ($left)" \
	"$([ "$left" = "0 0" ]; echo $?)" "$left"

# ---- a value changed in the store: the checksum stops the process -----------
prun "$VERIFY" --mb 32 --passes 1000 passes >"$tmp/c.out" 2>&1 &
run=$!
wait_keys "$p1" 3000
v=$(pid_of "--mb 32 --passes 1000")
kill -STOP "$v"
redis-cli -p "$p1" eval "for _, k in ipairs(redis.call('keys', 'pager:*')) do
	redis.call('setrange', k, 64, 'CORRUPT!') end return 1" 0 >/dev/null
kill -CONT "$v"
wait "$run"
rc=$?
check "a value changed in the store: the process is stopped (status $rc) by the checksum, never handed the page" \
	"$([ "$rc" = 137 ] && grep -q 'checksum' "$tmp/c.out" &&
	   ! grep -q 'wrong' "$tmp/c.out"; echo $?)" "$(cat "$tmp/c.out")"

# ---- flushed: the page is lost, the process stops -------------------------
prun "$VERIFY" --mb 32 --passes 1000 passes >"$tmp/f.out" 2>&1 &
run=$!
wait_keys "$p1" 3000
v=$(pid_of "--mb 32 --passes 1000")
kill -STOP "$v"
redis-cli -p "$p1" flushall >/dev/null
kill -CONT "$v"
wait "$run"
rc=$?
check "the store flushed: the process is stopped (status $rc): '$(grep -o 'the swap store.*' "$tmp/f.out" | head -1)'" \
	"$([ "$rc" = 137 ] && grep -q "swap store at 127.0.0.1:$p1 lost its page" "$tmp/f.out" &&
	   ! grep -q 'wrong' "$tmp/f.out"; echo $?)" "$(cat "$tmp/f.out")"

# ---- restarted empty: gone, then back ----------------------------------------
wait_empty "$p1"
prun "$VERIFY" --mb 32 --passes 1000 passes >"$tmp/r.out" 2>&1 &
run=$!
wait_keys "$p1" 3000
kill_redis "$p1"
start_redis "$p1"
wait "$run"
rc=$?
wait_stat redis.reconnects 1
check "the store restarted empty: the process is stopped (status $rc): '$(grep -o 'the swap store.*' "$tmp/r.out" | head -1)'; the daemon reconnects" \
	"$([ "$rc" = 137 ] && grep -q "swap store at 127.0.0.1:$p1 is gone" "$tmp/r.out" &&
	   [ "$(stat_of redis.servers_up)" = 1 ]; echo $?)" "$(cat "$tmp/r.out")"
out=$(prun "$VERIFY" --mb 32 passes 2>&1)
check "after the restart, a new program swaps to it, every word right" $? "$out"

# ---- killed mid-run: gone, and the daemon serves on ------------------------
wait_empty "$p1"
prun "$VERIFY" --mb 32 --passes 1000 passes >"$tmp/k.out" 2>&1 &
run=$!
wait_keys "$p1" 3000
kill_redis "$p1"
wait "$run"
rc=$?
check "the store killed mid-run: the process is stopped (status $rc): '$(grep -o 'the swap store.*' "$tmp/k.out" | head -1)'" \
	"$([ "$rc" = 137 ] && grep -q "swap store at 127.0.0.1:$p1 is gone" "$tmp/k.out" &&
	   ! grep -q 'wrong' "$tmp/k.out"; echo $?)" "$(cat "$tmp/k.out")"
out=$(prun python3 -c 'print(sum(range(10**6)))' 2>&1)
check "the store gone: the daemon serves what needs no swap ($out, servers up: $(stat_of redis.servers_up))" \
	"$([ "$out" = 499999500000 ] && [ "$(stat_of redis.servers_up)" = 0 ] &&
	   grep -q 'is gone' "$log"; echo $?)" "$out"
start_redis "$p1"
wait_stat redis.servers_up 1

# ---- silent (stopped): redis.timeout_ms ---------------------------------------
# The program is stopped either as one whose pages the store held, or, if
# it held none there at that moment, by the OOM killer at its next fault:
# with the store gone there is no swap left for its dirty pages.
"$PAGER" set --socket "$sock" redis.timeout_ms=300 >/dev/null
prun "$VERIFY" --mb 32 --passes 1000 passes >"$tmp/s.out" 2>&1 &
run=$!
wait_keys "$p1" 3000
kill_redis "$p1" STOP
wait "$run"
rc=$?
kill_redis "$p1" CONT
check "the store stops answering: after redis.timeout_ms it is gone and the process stopped (status $rc, timeouts $(stat_of redis.timeouts))" \
	"$([ "$rc" = 137 ] && grep -qE 'is gone|out of memory' "$tmp/s.out" &&
	   [ "$(stat_of redis.timeouts)" -ge 1 ]; echo $?)" "$(cat "$tmp/s.out")"
stop_daemon

# ---- three servers, one killed ------------------------------------------------
p2=$((base + 1))
p3=$((base + 2))
start_redis "$p2" && start_redis "$p3" || skip_rest "redis-server did not start"
start_daemon 16M --swap "redis://127.0.0.1:$p1,127.0.0.1:$p2,127.0.0.1:$p3" \
	--swap-size 1G || skip_rest "the daemon did not start"
runs=""
on=""
for k in 1 2 3 4 5 6 7 8 9; do
	prun "$VERIFY" --mb $((20 + k)) --passes 1000 passes >"$tmp/m$k.out" 2>&1 &
	eval "run$k=$!"
	v=$(pid_of "--mb $((20 + k)) --passes 1000")
	srv=$(server_of "$v")
	eval "srv$k=$srv"
	runs="$runs $k"
	on="$on $srv"
	# Until two servers hold someone: killing one must spare someone.
	[ "$k" -ge 4 ] && [ "$(echo "$on" | tr ' ' '\n' | sort -u | grep -c .)" -ge 2 ] && break
done
sleep 2
dead=127.0.0.1:$p2
[ "$srv1" != "$dead" ] && dead=$srv1	# someone's, for sure
kill_redis "${dead#*:}"
sleep 3
stopped=0
spared=0
bad=""
for k in $runs; do
	eval "r=\$run$k s=\$srv$k"
	if [ "$s" = "$dead" ]; then
		wait "$r"
		rc=$?
		[ "$rc" = 137 ] && grep -q "swap store at $dead is gone" "$tmp/m$k.out" &&
			stopped=$((stopped + 1)) || bad="$bad $k(on $s: $rc)"
	else
		kill -0 "$r" 2>/dev/null && spared=$((spared + 1)) ||
			bad="$bad $k(on $s: ended)"
	fi
done
check "three servers, $dead killed: the $stopped processes whose pages it held stop, the $spared others run on" \
	"$([ -z "$bad" ] && [ "$stopped" -ge 1 ] && [ "$spared" -ge 1 ]; echo $?)" \
	"wrong:$bad; $(for k in $runs; do eval "echo \$srv$k"; tail -2 "$tmp/m$k.out"; done)"
for k in $runs; do
	eval "r=\$run$k s=\$srv$k"
	[ "$s" != "$dead" ] && kill "$r" && wait "$r"
done
out=$(prun "$VERIFY" --mb 48 passes 2>&1)
check "two servers left: a new program swaps to them, every word right" $? "$out"
stop_daemon

# ---- bad input ------------------------------------------------------------------
e1=$("$PAGER" daemon --mem 8M --swap redis://127.0.0.1 --socket "$tmp/x.sock" 2>&1)
r1=$?
check "--swap redis://127.0.0.1 (no port) is refused (status $r1): $e1" \
	"$([ "$r1" = 2 ] && echo "$e1" | grep -q 'HOST:PORT'; echo $?)" "$e1"
e2=$(timeout 20 "$PAGER" daemon --mem 8M --swap "redis://127.0.0.1:$((base + 3))" \
	--socket "$tmp/x.sock" 2>&1)
r2=$?
check "a store that does not answer at start is refused (status $r2): $(echo "$e2" | tail -1)" \
	"$([ "$r2" = 1 ] && echo "$e2" | grep -q 'cannot reach the swap store'; echo $?)" "$e2"
