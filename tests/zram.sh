#!/bin/sh
# Swap compressed in the daemon's memory (--swap zram, issue 21) on real
# processes: the self-verifying workloads with lz4 and zstd, a python3
# program's output against its native run, zram's mm_stat fields,
# zram.mem_limit (the OOM killer, not a hang), bad input refused. Needs
# what daemon.sh needs; skips otherwise.
set -u
plan=14
. "$top_srcdir/tests/daemon-lib.sh"

# Compressible memory: 400 000 short strings, and 8 MiB of zeros (same-
# filled pages). Prints a sum of what it holds, twice, a second apart.
TEXT='
import sys, time
d = {i: "key %d value %s" % (i, "abc" * (i % 7)) for i in range(400000)}
z = bytearray(8 << 20)
print(sum(len(v) for v in d.values()) + len(z), flush=True)
time.sleep(1)
print(sum(len(v) for v in d.values()) + sum(z) + len(z))'

# ---- lz4, the default -----------------------------------------------------
start_daemon 8M --swap zram ||
	skip_rest "the daemon did not start: $(tail -3 "$log")"
for t in passes fork mremap dontneed; do
	o0=$(stat_of pswpout)
	out=$(prun "$VERIFY" --mb 32 "$t" 2>&1)
	rc=$?
	out1=$(($(stat_of pswpout) - o0))
	check "zram (lz4): verify $t, 32 MiB under 8 MiB, every word right (pswpout +$out1)" \
		"$([ "$rc" = 0 ] && [ "$out1" -gt 4096 ]; echo $?)" "$out"
done
native=$(python3 -c "$TEXT" 2>&1)
prun python3 -c "$TEXT" >"$tmp/text.out" 2>&1 &
run=$!
sleep 0.8
# The fullest zram seen while the program lives (once it ends, its
# pages go while we read).
best=0
st=""
while kill -0 "$run" 2>/dev/null && [ "$best" -lt $((16 << 20)) ]; do
	s=$("$PAGER" stat --socket "$sock" | grep '^zram\.' | tr '\n' ' ')
	o=$(echo "$s" | awk '{ for (i = 1; i < NF; i += 2)
		if ($i == "zram.orig_data_size") print $(i + 1) }')
	[ "${o:-0}" -gt "$best" ] && { best=$o; st=$s; }
	sleep 0.05
done
wait "$run"
check "zram (lz4): python3's output is its native run's, byte for byte" \
	"$([ "$(cat "$tmp/text.out")" = "$native" ]; echo $?)" \
	"native: $native / under the pager: $(cat "$tmp/text.out")"
check "pager stat shows zram's mm_stat: text compresses (ratio > 2), zeros are same-filled pages ($st)" \
	"$(echo "$st" | awk '{ for (i = 1; i < NF; i += 2) v[$i] = $(i + 1) }
		END { exit !(v["zram.comp_algorithm"] == "lz4" &&
			     v["zram.orig_data_size"] >= 16777216 &&
			     v["zram.compr_ratio"] > 2 &&
			     v["zram.same_pages"] > 0 &&
			     v["zram.mem_used_total"] > 0) }'; echo $?)" "$st"
left="$(stat_of zram.orig_data_size) $(stat_of zram.mem_used_total) $(stat_of zram.same_pages) $(stat_of swap_used)"
check "every program gone: zram holds nothing (orig, used, same, slots: $left)" \
	"$([ "$left" = "0 0 0 0" ]; echo $?)" "$left"
stop_daemon

# ---- zstd -------------------------------------------------------------------
start_daemon 8M --swap zram:zstd || skip_rest "the daemon did not start"
out=$(prun "$VERIFY" --mb 32 --threads 4 passes threads 2>&1)
check "zram:zstd: verify passes and threads, every word right" $? "$out"
out=$(prun python3 -c "$TEXT" 2>&1)
alg=$(stat_of zram.comp_algorithm)
check "zram:zstd: python3's output is its native run's (compressed with $alg)" \
	"$([ "$out" = "$native" ] && [ "$alg" = zstd ]; echo $?)" "$out"
stop_daemon

# ---- lzo: LZO1X-1, what the kernel's lzo runs --------------------------------
start_daemon 8M --swap zram:lzo || skip_rest "the daemon did not start"
o0=$(stat_of zram.huge_pages_since)
out=$(prun "$VERIFY" --mb 32 --compressible 75 passes fork 2>&1)
rc=$?
alg=$(stat_of zram.comp_algorithm)
huge=$(($(stat_of zram.huge_pages_since) - o0))
out2=$(prun python3 -c "$TEXT" 2>&1)
check "zram:lzo: verify passes and fork (75 % compressible: $huge pages stored whole) and python3, every word right and output native (compressed with $alg)" \
	"$([ "$rc" = 0 ] && [ "$out2" = "$native" ] && [ "$alg" = lzo ] &&
	   [ "$huge" -lt 100 ]; echo $?)" "$out $out2"
stop_daemon

# ---- zram.mem_limit: a full zram is no swap, and the OOM killer acts --------
start_daemon 8M --swap zram --set zram.mem_limit=8M ||
	skip_rest "the daemon did not start"
prun_watched "$VERIFY" --mb 32 passes >"$tmp/lim.out" 2>&1
rc=$prun_rc
kills=$(stat_of oom_kill)
used=$(stat_of zram.mem_used_max)
check "zram.mem_limit=8M under 32 MiB of random pages: OOM-killed (status $rc, oom_kill $kills), zram kept within it (max $used bytes)" \
	"$([ "$rc" = 137 ] && [ "$kills" = 1 ] && [ "$used" -le 8388608 ] &&
	   "$PAGER" stat --socket "$sock" >/dev/null; echo $?)" \
	"$(cat "$tmp/lim.out" "$tmp/hang" 2>/dev/null)"
"$PAGER" set --socket "$sock" zram.mem_limit=64M >/dev/null
out=$(prun "$VERIFY" --mb 32 passes 2>&1)
check "zram.mem_limit raised to 64M live: the same program runs, every word right" \
	$? "$out"
e1=$("$PAGER" set --socket "$sock" zram.mem_limit=lots 2>&1)
r1=$?
check "zram.mem_limit=lots is refused with the reason ($e1), the daemon serves on" \
	"$([ "$r1" != 0 ] && echo "$e1" | grep -q 'expected a size' &&
	   "$PAGER" stat --socket "$sock" >/dev/null; echo $?)" "$e1"
stop_daemon

e2=$("$PAGER" daemon --mem 8M --swap zram:xz --socket "$tmp/x.sock" 2>&1)
r2=$?
check "--swap zram:xz is refused (status $r2): zram compresses with lz4, zstd or lzo" \
	"$([ "$r2" = 2 ] && echo "$e2" | grep -q 'lz4, zstd or lzo'; echo $?)" "$e2"
