#!/bin/sh
# `pager experiment`: experiment files refused with FILE:LINE and the
# reason; a small experiment run under the daemon (root), its table, CSV
# and plot data, a failing configuration marked failed while the others
# run.
set -u
plan=48
. "$top_srcdir/tests/daemon-lib.sh"

bad() {	# NAME TEXT WANT: the file is refused, the message names the line
	printf '%s\n' "$2" >"$tmp/bad.exp"
	out=$("$PAGER" experiment -o "$tmp/out" "$tmp/bad.exp" 2>&1)
	rc=$?
	check "$1: refused (status $rc) with '$3'" \
		"$([ $rc = 2 ] && echo "$out" | grep -q "bad.exp:$3"; echo $?)" "$out"
}
bad "an unknown key" "mem 64M
workload true
colour blue
config a" "3: unknown key 'colour'"
bad "a bad size" "mem lots
workload true
config a" "1: mem: expected a size"
bad "a pattern without %f" "mem 64M
workload true
figure t lower took %d seconds
config a" "3: figure t: a pattern"
bad "a configuration named twice" "mem 64M
workload true
config a
config a x=1" "4: config a: named twice"
bad "a ratio without its divisor" "mem 64M
workload true
ratio r lower pswpin
config a" "3: ratio: expected NAME"
bad "a ratio whose scale is not a number" "mem 64M
workload true
ratio r lower pswpin accesses lots
config a" "3: ratio r: the scale 'lots' is not a number"
bad "no configuration" "mem 64M
workload true" "3: no config line"
bad "a disk limit of no known kind" "mem 64M
workload true
disk riops=100 seeks=5
config a" "3: disk: 'seeks' is not rbps="
bad "a disk limit of zero" "mem 64M
disk rbps=0
workload true
config a" "2: disk rbps: expected bytes a second"

if ! "$PAGER" run --help >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
	skip_rest "the daemon needs root and liburing, libuv, libseccomp"
fi
# Settings are checked by the daemon's own rules before anything runs.
bad "an unknown tunable in a set line" "mem 16M
dir runs
set vm.swappiness=60
set vm.swapiness=60
workload touch ran
config a" "4: --set vm.swapiness=60: unknown tunable"
bad "a bad value in the second configuration" "mem 16M
dir runs
workload touch ran
config a use_once_mapped=on
config b use_once_mapped=maybe" "5: config b: --set use_once_mapped=maybe: expected on or off"
check "and no workload ran for either" "$([ -d "$tmp/runs" ] && [ ! -e "$tmp/runs/ran" ]; echo $?)"
printf 'mem 16M\nswap none\ndir data\nworkload touch ran\nconfig a\nconfig b vm.swappiness=10\n' >"$tmp/plan.exp"
out=$("$PAGER" experiment --check -o "$tmp/pres" "$tmp/plan.exp" 2>&1)
rc=$?
check "--check ($rc) prints the plan and runs nothing" \
	"$([ $rc = 0 ] && echo "$out" | grep -q "^budget 16M, swap none; 2 configurations, 1 run each$" &&
	   echo "$out" | grep -q "^  b  *vm.swappiness=10$" && [ ! -e "$tmp/data/ran" ]; echo $?)" "$out"
# The experiment files shipped in examples/ parse, and the daemon takes
# every configuration's settings.
files=0 failed=
for f in "$top_srcdir"/examples/*.exp; do
	files=$((files + 1))
	"$PAGER" experiment --check -o "$tmp/ex" "$f" >"$tmp/ex.out" 2>&1 ||
		failed="$failed $(basename "$f"): $(tail -n 1 "$tmp/ex.out")"
done
check "the $files experiment files in examples/ pass --check" \
	"$([ $files -ge 7 ] && [ -z "$failed" ]; echo $?)" "$failed"

cat >"$tmp/small.exp" <<'EXP'
# a small experiment: two figures, a configuration that fails
title  small
mem    32M
swap   none
repeat 2
timeout 60
workload echo "score 7"; echo "tries 28"; echo "File access time, round 0: 0.25 (sec)"; echo "File access time, round 1: 0.125 (sec)"; [ "$PAGER_CONFIG" = broken ] && exit 3; exit 0
figure score higher
figure tries lower
ratio  hit_pct higher score tries 100
figure round lower File access time, round %d: %f (sec)
plot   round
config base    use_once_mapped=on
config broken  use_once_mapped=off
config other   vm.swappiness=100
EXP
out=$("$PAGER" experiment -o "$tmp/res" "$tmp/small.exp" 2>"$tmp/exp.err")
rc=$?
check "a failing configuration makes the status 1 ($rc)" "$([ $rc = 1 ]; echo $?)" "$out"
check "the table has the figures of the others" \
	"$(echo "$out" | grep -Eq '^Amean round1 +0.125 \(   0.00%\) +failed +0.125 \(   0.00%\)'; echo $?)" "$out"
check "a ratio line: score / tries * 100 of each run" \
	"$(echo "$out" | grep -Eq '^Amean hit_pct +25 \(   0.00%\) +failed +25 \(   0.00%\)' &&
	   grep -q '^base,1,hit_pct,25$' "$tmp/res/results.csv"; echo $?)" "$out"
check "and says why the broken one failed" \
	"$(echo "$out" | grep -q 'run 1 failed: exit status 3'; echo $?)" "$out"
check "results.csv has every run's values and the failures" \
	"$([ "$(grep -c '^base,[01],score,7$' "$tmp/res/results.csv")" = 2 ] &&
	   grep -q '^broken,0,failed,"exit status 3"' "$tmp/res/results.csv" &&
	   grep -q '^other,1,pgfault,' "$tmp/res/results.csv"; echo $?)" \
	"$(head -5 "$tmp/res/results.csv")"
check "plot.dat has a line per round, a column per configuration" \
	"$(awk '!/^#/ { n++ } END { exit !(n == 2) }' "$tmp/res/plot.dat" &&
	   grep -q '^1 0.125 NaN 0.125$' "$tmp/res/plot.dat"; echo $?)" \
	"$(cat "$tmp/res/plot.dat")"

# --report: the same table again from results.csv, nothing run.
cp "$tmp/res/table.txt" "$tmp/table.first"
out=$("$PAGER" experiment --report "$tmp/res" "$tmp/small.exp" 2>&1)
rc=$?
check "--report ($rc): the table again from results.csv, line for line" \
	"$([ $rc = 0 ] && cmp -s "$tmp/table.first" "$tmp/res/table.txt"; echo $?)" \
	"$(diff "$tmp/table.first" "$tmp/res/table.txt" | head -5)"
{ cat "$tmp/small.exp"; echo "ratio tries_per_score lower tries score"; } >"$tmp/more.exp"
out=$("$PAGER" experiment --report "$tmp/res" "$tmp/more.exp" 2>&1)
check "--report computes a ratio the file gained since the runs" \
	"$(echo "$out" | grep -Eq '^Amean tries_per_score +4 \(   0.00%\)'; echo $?)" "$out"
printf 'config,run,name,value\nbase,0,score,7\nnosuch,0,score,1\n' >"$tmp/res/results.csv"
out=$("$PAGER" experiment --report "$tmp/res" "$tmp/small.exp" 2>&1)
rc=$?
check "--report of a results.csv naming another configuration: refused ($rc) at its line" \
	"$([ $rc = 1 ] && echo "$out" | grep -q "results.csv:3: configuration 'nosuch'"; echo $?)" "$out"

# ^C: the run under way is stopped (its process group too), the others are
# not started, what ran is reported, status 130.
printf 'mem 16M\nswap none\nworkload sleep 29.75\nfigure score\nconfig a\nconfig b\n' >"$tmp/int.exp"
"$PAGER" experiment -o "$tmp/ires" "$tmp/int.exp" >"$tmp/int.out" 2>&1 &
ex=$!
sleep 1.5
kill -INT $ex
t0=$(date +%s)
wait $ex
rc=$?
took=$(( $(date +%s) - t0 ))
sleep 0.3
left=$(pgrep -f 'sleep 29[.]75' | wc -l)
check "SIGINT ($rc after ${took} s): the run stopped, its workload gone ($left left), the rest not run, reported" \
	"$([ $rc = 130 ] && [ "$took" -le 10 ] && [ "$left" = 0 ] &&
	   grep -q 'run 0 failed: interrupted' "$tmp/int.out" &&
	   grep -q 'run 0 failed: not run (interrupted)' "$tmp/int.out"; echo $?)" \
	"$(cat "$tmp/int.out")"

# A file named by a relative path whose `dir` is relative too: the run
# chdirs into the directory and still finds its daemon. The workload
# marks a phase with `pager phase`, not under the shim: a sanitizer
# build of pager refuses to start with a library preloaded before ASan.
mkdir -p "$tmp/rel/exps"
cat >"$tmp/rel/exps/rel.exp" <<'EXP'
mem      16M
swap     none
dir      ../data
workload echo "score 3"; pwd; env -u LD_PRELOAD "$PAGER_BIN" phase one
figure   score higher
config   only
EXP
out=$(cd "$tmp/rel" && "$PAGER" experiment -o res exps/rel.exp 2>&1)
rc=$?
check "a relative file and dir ($rc): the run is in FILE's dir/../data, its results in ./res" \
	"$([ $rc = 0 ] && grep -qx "$(cd "$tmp/rel/data" && pwd -P)" "$tmp/rel/res/only-0.out" &&
	   echo "$out" | grep -Eq '^Amean score +3 '; echo $?)" "$out"
check "a phase the workload marked has its counters in results.csv" \
	"$(grep -q '^only,0,phase\.one\.pswpout,0$' "$tmp/rel/res/results.csv"; echo $?)" \
	"$(grep phase "$tmp/rel/res/results.csv" | head -3)"
check "without a plot line, plot.dat has each figure in percent of the base" \
	"$(grep -q '^score 100 0$' "$tmp/rel/res/plot.dat"; echo $?)" "$(cat "$tmp/rel/res/plot.dat")"

# disk: the kernel's block-I/O throttle on the runs' disk. 150 reads of
# 4 KiB with O_DIRECT at 50 a second cannot take less than 2 s (the
# throttle lends a first slice); unthrottled they take milliseconds.
cat >"$tmp/rel/disk.exp" <<'EXP'
mem      16M
swap     none
dir      data
disk     riops=50
workload dd if=/dev/zero of=f bs=4k count=150 2>/dev/null && sync && s=$(date +%s.%N) && dd if=f of=/dev/null bs=4k iflag=direct 2>/dev/null && echo "read_s $(date +%s.%N) $s" | awk '{ print $1, $2 - $3 }'
figure   read_s lower
config   only
EXP
# A group an experiment killed with SIGKILL left behind: a PID that is
# gone (a subshell's, waited for).
stale=$(sh -c 'echo $$')
for h in /sys/fs/cgroup/blkio /sys/fs/cgroup; do
	[ -e "$h/cgroup.procs" ] && mkdir -p "$h/pager-experiment-$stale" 2>/dev/null && break
done
out=$("$PAGER" experiment -o "$tmp/rel/dres" "$tmp/rel/disk.exp" 2>&1)
rc=$?
if echo "$out" | grep -Eq 'disk: (no cgroup hierarchy|.* not a block device)'; then
	skip_one "no block-I/O cgroup controller or block device here: $(echo "$out" | head -1)"
else
	took=$(echo "$out" | awk '$1 == "Amean" && $2 == "read_s" { print $3 }')
	check "disk riops=50 ($rc): 150 direct reads took ${took:-?} s (>= 2), the table names the throttle, its group and a killed experiment's are gone" \
		"$([ $rc = 0 ] && awk -v t="${took:-0}" 'BEGIN { exit !(t >= 2) }' &&
		   echo "$out" | grep -Eq '^disk: riops=50 \(cgroup v[12] [a-z.]+ on [0-9]+:[0-9]+' &&
		   ! ls -d /sys/fs/cgroup/*/pager-experiment-* /sys/fs/cgroup/pager-experiment-* 2>/dev/null | grep -q .;
		   echo $?)" "$out"
fi
rmdir /sys/fs/cgroup/*/pager-experiment-"$stale" /sys/fs/cgroup/pager-experiment-"$stale" 2>/dev/null

# ---- pager trace: the policy's events as mm_vmscan_* lines ---------------
start_daemon 8M || skip_rest "the daemon did not start"
s0=$(( $(stat_of pgscan_kswapd) + $(stat_of pgscan_direct) ))
timeout 20 "$PAGER" trace --socket "$sock" -o "$tmp/trace" &
tracer=$!
sleep 0.3
prun "$VERIFY" --mb 24 passes >/dev/null 2>&1
s1=$(( $(stat_of pgscan_kswapd) + $(stat_of pgscan_direct) ))
sleep 0.5
kill $tracer 2>/dev/null
wait $tracer 2>/dev/null
taken=$(awk '$5 == "mm_vmscan_lru_isolate:" { for (i = 6; i <= NF; i++)
	if ($i ~ /^nr_taken=/) { sub("nr_taken=", "", $i); s += $i } }
	END { print s + 0 }' "$tmp/trace")
check "pager trace: lru_isolate's nr_taken adds up to the scan counters ($taken, pgscan +$((s1 - s0)))" \
	"$([ "$taken" = $((s1 - s0)) ] && [ "$taken" -gt 0 ]; echo $?)" "$(head -3 "$tmp/trace")"
check "in ftrace's format, with the kernel's event names" \
	"$(grep -Eq '^ +pager-[0-9]+ +\[000\] \.\.\.\.\. +[0-9]+\.[0-9]{6}: mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=[0-9]+ nr_reclaimed=[0-9]+ ' "$tmp/trace"; echo $?)" \
	"$(head -3 "$tmp/trace")"
out=$("$PAGER" trace --socket "$sock" --events lru_isolate,nosuch 2>&1)
rc=$?
check "an unknown event is refused ($rc) and named" \
	"$([ $rc = 1 ] && echo "$out" | grep -q 'unknown event'; echo $?)" "$out"

# ---- pager phase: a mark in every trace stream; bad names refused --------
timeout 20 "$PAGER" trace --socket "$sock" --events kswapd_wake \
	-o "$tmp/marks" &
tracer=$!
sleep 0.3
out=$("$PAGER" phase --socket "$sock" warm-up.1 2>&1)
rc=$?
sleep 0.3
kill $tracer 2>/dev/null
wait $tracer 2>/dev/null
check "pager phase ($rc): a tracing_mark_write line, whatever events the stream asked" \
	"$([ $rc = 0 ] && grep -Eq '^ +pager-[0-9]+ +\[000\] \.\.\.\.\. +[0-9]+\.[0-9]{6}: tracing_mark_write: warm-up\.1$' "$tmp/marks"; echo $?)" \
	"$out $(cat "$tmp/marks")"
refused=0
for name in 'a#b' 'two words' "$(printf '%064d' 0)"; do
	out=$("$PAGER" phase --socket "$sock" "$name" 2>&1)
	[ $? = 1 ] && echo "$out" | grep -q 'phase: expected one NAME' &&
		refused=$((refused + 1))
done
check "names with '#', a space or 64 characters are refused ($refused of 3), the daemon serves on" \
	"$([ $refused = 3 ] && "$PAGER" stat --socket "$sock" >/dev/null; echo $?)" "$out"
# Counters per phase: a swapping run inside "fill", nothing in "quiet".
"$PAGER" phase --socket "$sock" fill >/dev/null
prun "$VERIFY" --mb 24 passes >/dev/null 2>&1
"$PAGER" phase --socket "$sock" quiet >/dev/null
sleep 0.2
"$PAGER" phase --socket "$sock" fill >/dev/null
out=$("$PAGER" stat --socket "$sock" --phases 2>&1)
fill=$(echo "$out" | awk '$1 == "phase.fill.pswpout" { print $2 }')
quiet=$(echo "$out" | awk '$1 == "phase.quiet.pgfault" { print $2 }')
check "pager stat --phases: the run's swap-outs in its phase ($fill), none in the next ($quiet faults), a repeated name is fill#2" \
	"$([ "${fill:-0}" -gt 1000 ] && [ "$quiet" = 0 ] &&
	   echo "$out" | grep -q '^phase\.fill#2\.nr_active_anon ' &&
	   echo "$out" | grep -q '^phase\.warm-up\.1\.pswpout '; echo $?)" "$out"
stop_daemon

# ---- pager run --record: a real run, replayed by pager sim ---------------
out=$(timeout 120 "$PAGER" run --mem 8M --record "$tmp/run.rec" -- \
	"$VERIFY" --mb 16 --file "$tmp/rec.data" passes fprivate 2>&1)
check "a run recorded with --record" $? "$out"
sim=$("$PAGER" sim --mem 8M "$tmp/run.rec" 2>&1)
refs=$(echo "$sim" | awk '$1 == "refs" { print $2 }')
check "pager sim replays it (refs $refs: every page of 16 MiB, twice or more)" \
	"$([ "${refs:-0}" -ge 8192 ] && ! echo "$sim" | grep -q '^pager:'; echo $?)" \
	"$(echo "$sim" | head -3; grep -v '^[rw] ' "$tmp/run.rec" | head -5)"
thrash="$(cd "$top_builddir" && pwd)/examples/thrash"
(cd "$tmp" && timeout 120 "$PAGER" run --mem 16M --record "$tmp/thrash.rec" \
	-- "$thrash" 8 24 3 >"$tmp/thrash.out" 2>&1)
check "thrash under --record marks its phases: alloc, round0..2, check, in order" \
	"$([ "$(awk '$1 == "phase" { printf "%s ", $2 }' "$tmp/thrash.rec")" = \
	     "alloc round0 round1 round2 check " ]; echo $?)" \
	"$(cat "$tmp/thrash.out"; grep '^phase' "$tmp/thrash.rec")"
sim=$("$PAGER" sim --mem 16M "$tmp/thrash.rec" 2>&1)
r1=$(echo "$sim" | awk '$1 == "phase.round1.refs" { print $2 }')
check "pager sim reports each recorded phase apart (round1: $r1 refs, the file's 6144 pages or more)" \
	"$([ "${r1:-0}" -ge 6144 ]; echo $?)" "$(echo "$sim" | grep '^phase' | head)"

# ---- the kernel beside the pager: `config NAME native` ---------------------
# The same workload, natively, in a memory cgroup of the budget, with a
# swap file of the experiment's size for the run alone; its counters from
# /proc/vmstat and the cgroup under the pager's names; the machine as it
# was after (no cgroup, no swap, the settings back).
usemem="$(cd "$top_builddir" && pwd)/examples/usemem"
swappiness0=$(cat /proc/sys/vm/swappiness)
swaps0=$(grep -c / /proc/swaps)
printf '%s\n' "mem       32M" "swap      256M" "workload  $usemem 64 2" \
	"counters  pswpout pgmajfault pgfault_young oom_kill" \
	"config    pager" "config    kernel native vm.swappiness=100" \
	"config    group memcg" >"$tmp/native.exp"
out=$("$PAGER" experiment -o "$tmp/nat" "$tmp/native.exp" 2>&1)
rc=$?
ksw=$(echo "$out" | awk '$1 == "pswpout" { print $3 }')
young=$(echo "$out" | awk '$1 == "pgfault_young" { print $3 }')
check "a native configuration: 64 MB through 32M, the kernel swaps too (pswpout $ksw), a counter it has not is '-' ($young)" \
	"$([ $rc = 0 ] && [ "${ksw:-0}" -gt 4096 ] && [ "$young" = - ]; echo $?)" "$out"
# `memcg`: the pager with memory to spare, the workload in a group whose
# memory.max is the budget, as the kernel's memory cgroup.
gsw=$(awk -F, '$1 == "group" && $3 == "pswpout" { print $4 }' "$tmp/nat/results.csv")
gbud=$(awk -F, '$1 == "group" && $3 == "budget_pages" { print $4 }' "$tmp/nat/results.csv")
check "a memcg configuration: the daemon's budget 32M + 256M ($gbud pages), the group's 32M swaps (pswpout $gsw)" \
	"$([ "$gbud" = 73728 ] && [ "${gsw:-0}" -gt 4096 ]; echo $?)" \
	"$(grep '^group' "$tmp/nat/results.csv" | head -20)"
check "and the machine is as it was: no cgroup of the run, its swap off, vm.swappiness back ($(cat /proc/sys/vm/swappiness))" \
	"$(! ls -d /sys/fs/cgroup/pager-exp-* /sys/fs/cgroup/memory/pager-exp-* >/dev/null 2>&1 &&
	   [ "$(grep -c / /proc/swaps)" = "$swaps0" ] &&
	   [ "$(cat /proc/sys/vm/swappiness)" = "$swappiness0" ] &&
	   ! ls "${TMPDIR:-/tmp}"/pager-native-swap.* >/dev/null 2>&1; echo $?)" \
	"$(cat /proc/swaps)"
# Every run holds the CPU latency request the daemon holds while programs
# fault (cpu_latency_us, 0 by default; none at 2000000000), the kernel's
# too: a native workload sees the descriptor in its parent, the
# experiment.
for us in 0 2000000000; do
	printf '%s\n' "mem       32M" "swap      none" \
		"workload  ls -l /proc/\$PPID/fd | grep -c cpu_dma_latency" \
		"set       cpu_latency_us=$us" "config    kernel native" \
		>"$tmp/qos.exp"
	"$PAGER" experiment -o "$tmp/qos-$us" "$tmp/qos.exp" >/dev/null 2>&1
	eval "held_$us=\$(cat \"\$tmp/qos-\$us/kernel-0.out\" 2>/dev/null)"
done
check "a run, a native one too, holds the CPU latency request as the daemon does (descriptors of /dev/cpu_dma_latency: $held_0 with cpu_latency_us=0, $held_2000000000 with 2000000000)" \
	"$([ "$held_0" = 1 ] && [ "$held_2000000000" = 0 ]; echo $?)" \
	"$(cat "$tmp"/qos-*/kernel-0.err 2>/dev/null)"
printf '%s\n' "mem       32M" "swap      none" "workload  $usemem 64 2" \
	"counters  pswpout oom_kill" "config    pager" "config    kernel native" \
	>"$tmp/nswap.exp"
out=$("$PAGER" experiment -o "$tmp/nsw" "$tmp/nswap.exp" 2>&1)
check "without swap, both out of memory: the table says the kernel OOM-killed" \
	"$(echo "$out" | grep -q 'OOM-killed by the kernel'; echo $?)" "$out"
bad "a configuration both native and memcg" "mem 16M
workload true
config k native memcg" "3: config k: 'memcg' is not KEY=VALUE"
bad "a native configuration with the pager's own setting" "mem 16M
workload true
config a
config k native use_once_mapped=on" "4: config k: use_once_mapped is not a setting this kernel has"
bad "a native configuration with a zram compressor it cannot have" "mem 16M
workload true
config a
config k native swap=zram:nope" "4: config k: swap=zram:nope: this kernel"
bad "a configuration whose swap device the pager has not" "mem 16M
workload true
config a
config z swap=zram:nope" "4: config z"
# zram on both sides: the pager's --swap zram and the kernel's zram0
if [ -w /sys/block/zram0/disksize ]; then
	printf '%s\n' "mem       32M" "swap      256M" "workload  $usemem 64 2" \
		"counters  pswpout oom_kill" "config    pager swap=zram" \
		"config    kernel native swap=zram" >"$tmp/zram.exp"
	out=$("$PAGER" experiment -o "$tmp/zr" "$tmp/zram.exp" 2>&1)
	rc=$?
	psw=$(echo "$out" | awk '$1 == "pswpout" { print $2 }')
	ksw=$(echo "$out" | awk '$1 == "pswpout" { print $3 }')
	check "swap=zram: 64 MB through 32M, the pager's zram and the kernel's zram0 both swap (pswpout $psw, $ksw), and zram0 is reset after ($(cat /sys/block/zram0/disksize))" \
		"$([ $rc = 0 ] && [ "${psw:-0}" -gt 4096 ] && [ "${ksw:-0}" -gt 4096 ] &&
		   [ "$(cat /sys/block/zram0/disksize)" = 0 ] &&
		   [ "$(grep -c / /proc/swaps)" = "$swaps0" ]; echo $?)" "$out"
else
	skip_one "no zram0 here (modprobe zram): the kernel's zram beside the pager's"
fi
