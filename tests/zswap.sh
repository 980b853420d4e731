#!/bin/sh
# zswap (issue 21): a compressed pool in front of the swap file, charged
# to the budget, on real processes: the self-verifying workloads with
# compressible pages (stored, loaded, written back to the file when the
# pool fills), random pages (refused, to the file), python3's output
# against its native run; the pool within zswap.max_pool_percent and, with
# the pages, within the budget; the knobs switched live, the compressor
# changed with pages of both in the pool; nothing left once the programs
# are gone; bad settings refused. Needs what daemon.sh needs.
set -u
plan=15
. "$top_srcdir/tests/daemon-lib.sh"

# Compressible memory: 400 000 short strings. Prints a sum, twice.
TEXT='
import time
d = {i: "key %d value %s" % (i, "abc" * (i % 7)) for i in range(400000)}
print(sum(len(v) for v in d.values()), flush=True)
time.sleep(1)
print(sum(len(v) for v in d.values()))'

stats() {	# NAME...: their values, one line
	"$PAGER" stat --socket "$sock" |
		awk 'BEGIN { for (i = 1; i < ARGC; i++) want[ARGV[i]] = i; ARGC = 1 }
		     $1 in want { v[want[$1]] = $2 }
		     END { for (i = 1; i in v; i++) printf "%s ", v[i] }' "$@"
}

start_daemon 8M --set zswap.enabled=Y ||
	skip_rest "the daemon did not start: $(tail -3 "$log")"

# ---- compressible pages: stored, loaded, written back ----------------------
for t in passes fork mremap dontneed threads; do
	set -- $(stats zswpout zswpin zswpwb)
	out=$(prun "$VERIFY" --mb 32 --compressible 75 "$t" 2>&1)
	rc=$?
	set -- $(($(stat_of zswpout) - $1)) $(($(stat_of zswpin) - $2)) \
		$(($(stat_of zswpwb) - $3))
	check "zswap: verify $t, 32 MiB (75 % compressible) under 8 MiB, every word right (zswpout +$1, zswpin +$2, zswpwb +$3)" \
		"$([ "$rc" = 0 ] && [ "$1" -gt 2000 ] && [ "$2" -gt 500 ]; echo $?)" \
		"$out"
done
wb=$(stats zswpwb zswap.written_back_pages zswap.pool_limit_hit)
check "a full pool writes its oldest entries back to the file (zswpwb, written_back_pages, pool_limit_hit: $wb)" \
	"$(echo "$wb" | awk '{ exit !($1 > 0 && $1 == $2 && $3 > 0) }'; echo $?)" "$wb"

# ---- the pool in the budget ------------------------------------------------
prun "$VERIFY" --mb 32 --compressible 75 --passes 6 passes >"$tmp/b.out" 2>&1 &
run=$!
worst=""
over=0
while kill -0 "$run" 2>/dev/null; do
	s=$(stats zswap.pool_total_size nr_free_pages nr_inactive_anon \
		nr_active_anon nr_unevictable)
	[ -z "$s" ] && continue
	set -- $s
	used=$(($1 / 4096 + $2 + $3 + $4 + $5))
	# 20 % of 2048 pages, and one zspage (4 pages) past it at most.
	[ $(($1 / 4096)) -gt $((2048 / 5 + 4)) ] && over=$((over + 1))
	[ "$used" -gt 2048 ] && over=$((over + 1))
	worst="pool $(($1 / 4096)) pages, free+lru+pool $used"
	sleep 0.1
done
wait "$run"
rc=$?
check "the pool is charged to the budget: pool + free + LRU pages never over 2048, the pool within 20 % ($worst; breaches $over)" \
	"$([ "$rc" = 0 ] && [ "$over" = 0 ] && [ -n "$worst" ]; echo $?)" \
	"$(cat "$tmp/b.out")"

# ---- random pages: refused, to the file -------------------------------------
set -- $(stats zswap.reject_compress_poor pswpout)
out=$(prun "$VERIFY" --mb 32 passes 2>&1)
rc=$?
set -- $(($(stat_of zswap.reject_compress_poor) - $1)) $(($(stat_of pswpout) - $2))
check "random pages do not compress: refused (reject_compress_poor +$1), written to the file (pswpout +$2), every word right" \
	"$([ "$rc" = 0 ] && [ "$1" -gt 4096 ] && [ "$2" -gt 4096 ]; echo $?)" "$out"

# ---- a real program -------------------------------------------------------------
native=$(python3 -c "$TEXT" 2>&1)
prun python3 -c "$TEXT" >"$tmp/text.out" 2>&1 &
run=$!
# The best seen: pages held per pool page, and per page of their
# compressed bytes (the pool's waste left out).
pool=0
comp=0
while kill -0 "$run" 2>/dev/null; do
	set -- $(stats zswap.stored_pages zswap.pool_total_size \
		zswap.compressed_bytes)
	if [ "${1:-0}" -gt 0 ] && [ "${2:-0}" -gt 0 ] && [ "${3:-0}" -gt 0 ]; then
		pool=$(awk -v a="$pool" -v b="$(($1 * 4096))" -v c="$2" \
			'BEGIN { r = b / c; print (r > a ? r : a) }')
		comp=$(awk -v a="$comp" -v b="$(($1 * 4096))" -v c="$3" \
			'BEGIN { r = b / c; print (r > a ? r : a) }')
	fi
	sleep 0.1
done
wait "$run"
check "python3's output is its native run's, byte for byte (seen: $pool pages held per pool page, compressed $comp to 1)" \
	"$([ "$(cat "$tmp/text.out")" = "$native" ] &&
	   awk -v p="$pool" -v c="$comp" 'BEGIN { exit !(p > 1.5 && c > 2) }'; echo $?)" \
	"native: $native / under the pager: $(cat "$tmp/text.out")"

# ---- live: enabled, compressor, max_pool_percent flipped mid-run -------------
prun "$VERIFY" --mb 32 --compressible 75 --passes 8 passes >"$tmp/l.out" 2>&1 &
run=$!
k=0
while kill -0 "$run" 2>/dev/null; do
	case $((k % 5)) in
	0) "$PAGER" set --socket "$sock" zswap.compressor=zstd ;;
	4) "$PAGER" set --socket "$sock" zswap.compressor=lzo ;;
	1) "$PAGER" set --socket "$sock" zswap.enabled=N ;;
	2) "$PAGER" set --socket "$sock" zswap.compressor=lz4 zswap.max_pool_percent=5 ;;
	3) "$PAGER" set --socket "$sock" zswap.enabled=Y zswap.max_pool_percent=20 ;;
	esac >/dev/null
	k=$((k + 1))
	sleep 0.2
done
wait "$run"
rc=$?
check "zswap.enabled, compressor and max_pool_percent flipped $k times mid-run: every word right, lzo, lz4 and zstd entries side by side" \
	"$([ "$rc" = 0 ] && [ "$k" -ge 5 ]; echo $?)" "$(cat "$tmp/l.out")"
"$PAGER" set --socket "$sock" zswap.enabled=Y zswap.compressor=lzo \
	zswap.max_pool_percent=20 >/dev/null

# ---- disabled: what the pool holds is still read ----------------------------------
prun "$VERIFY" --mb 32 --compressible 75 --passes 4 passes >"$tmp/d.out" 2>&1 &
run=$!
for _ in $(seq 100); do
	[ "$(stat_of zswap.stored_pages)" -gt 200 ] && break
	sleep 0.05
done
"$PAGER" set --socket "$sock" zswap.enabled=N >/dev/null
o0=$(stat_of zswpout)
wait "$run"
rc=$?
o1=$(($(stat_of zswpout) - o0))
check "zswap.enabled=N mid-run: nothing new enters (zswpout +$o1), what the pool held comes back right" \
	"$([ "$rc" = 0 ] && [ "$o1" = 0 ]; echo $?)" "$(cat "$tmp/d.out")"
# The daemon frees a process's pages once it has seen it go.
for _ in $(seq 100); do
	left=$(stats zswap.stored_pages zswap.pool_total_size swap_used \
		nr_free_pages)
	[ "$left" = "0 0 0 2048 " ] && break
	sleep 0.05
done
check "every program gone: the pool holds nothing, no slot used, every page free ($left)" \
	"$([ "$left" = "0 0 0 2048 " ]; echo $?)" "$left"

# ---- bad settings --------------------------------------------------------------
e1=$("$PAGER" set --socket "$sock" zswap.compressor=deflate 2>&1)
r1=$?
e2=$("$PAGER" set --socket "$sock" zswap.enabled=maybe 2>&1)
r2=$?
e3=$("$PAGER" set --socket "$sock" zswap.accept_threshold_percent=101 2>&1)
r3=$?
check "zswap.compressor=deflate, enabled=maybe, accept_threshold_percent=101 are refused with the reason ($e1 / $e2 / $e3), the daemon serves on" \
	"$([ "$r1" != 0 ] && echo "$e1" | grep -q 'lz4, zstd or lzo' &&
	   [ "$r2" != 0 ] && echo "$e2" | grep -q 'Y or N' &&
	   [ "$r3" != 0 ] && echo "$e3" | grep -q 'from 0 to 100' &&
	   [ "$(stat_of zswap.stored_pages)" = 0 ]; echo $?)" "$e1 $e2 $e3"
got=$("$PAGER" get --socket "$sock" zswap.enabled zswap.compressor \
	zswap.max_pool_percent zswap.accept_threshold_percent 2>&1 | tr '\n' ' ')
check "pager get shows the knobs as the kernel's parameters do ($got)" \
	"$(echo "$got" | grep -q 'zswap.enabled N zswap.compressor lzo zswap.max_pool_percent 20 zswap.accept_threshold_percent 90'; echo $?)" "$got"
stop_daemon

start_daemon 8M --swap zram || skip_rest "the daemon did not start"
e4=$("$PAGER" set --socket "$sock" zswap.enabled=Y 2>&1)
r4=$?
check "with --swap zram, zswap.enabled=Y is refused ($e4)" \
	"$([ "$r4" != 0 ] && echo "$e4" | grep -q 'in front of a swap file' &&
	   "$PAGER" stat --socket "$sock" >/dev/null; echo $?)" "$e4"
stop_daemon
