#!/bin/bash
# make bench, part 4: real programs no one here wrote, each at a budget
# below its peak, under the pager and under the kernel side by side, and
# again with ample memory (docs/testing.md, "bench-pressure").
#
#   sh tests/bench-pressure.sh pager/pager     (root)
#
# Each program runs through `pager experiment`. Under pressure, three
# configurations: `kernel native` (the same command in a memory cgroup of
# the budget, with a swap file of the experiment's size); `pager memcg`,
# the pager reclaiming as that memory cgroup does (the program in a group
# whose memory.max is the budget, the daemon with memory to spare), which
# is the ratio; and `global`, the pager with the budget as all its memory
# (kswapd and the watermarks: the kernel's code for a machine that small,
# not the memory cgroup's). With ample memory, `pager` and `kernel
# native`. Every run's output
# must be the native one byte for byte; a run that fails or prints
# anything else fails the benchmark (exit 1). It prints per program
# pager / kernel time, young-bit faults per swap-in, the daemon's CPU per
# fault (pager_cpu_us over pgfault), pager / kernel with ample memory,
# the memory each side ran in under pressure (MB: k_mcg the kernel's
# memory cgroup's max_usage_in_bytes, p_hwm the pager's run's largest
# process's VmHWM, p_peak the daemon's charged pages' peak, memory.peak),
# and the geometric means against issue 19's goals.
#
#   BENCH_ONLY="perl node"   a subset
#   BENCH_REPEAT=1           runs per configuration under pressure (3)
#   BENCH_AMPLE_REPEAT=7     runs per configuration with ample memory (5)
#
# Times are the median of a configuration's runs, counters their mean.
# Runs are repeated, interleaved (pager, kernel, pager, ...), by default:
# with ample memory the pager's cost is a few per cent, less than this
# VM's drift between two runs of the same program (node natively: 0.80
# to 1.31 s within minutes); under pressure one run of python3 read 2.09
# and the next 2.90.
#   BENCH_FLOORS=PATH        bench-daemon, for its --floors (the build's)
#   BENCH_KEEP=1             keep the work directory (each experiment's
#                            table.txt, results.csv, .out, .err, daemon log)
set -u
set -o pipefail

PAGER=$(realpath "${1:-pager/pager}")
repeat=${BENCH_REPEAT:-3}
ample_repeat=${BENCH_AMPLE_REPEAT:-5}
ample=4G

if [ "$(id -u)" != 0 ]; then
	echo "bench-pressure: skipped (needs root: memory cgroups, swapon)"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/bench-pressure.XXXXXX")
# This host's floors, before and after the runs (bench-daemon --floors):
# printed beside the ratios, so that a slow host is told from a slow pager.
floors=${BENCH_FLOORS:-$(dirname "$PAGER")/../tests/bench-daemon}
floors_seen=
take_floors() {	# WHEN
	[ -x "$floors" ] && floors_seen="$floors_seen
$("$floors" --floors 2>/dev/null | sed "s/^floor /floor_$1 /")"
}
trap '[ -n "${BENCH_KEEP:-}" ] && echo "bench-pressure: kept $tmp" ||
      rm -rf "$tmp"' EXIT

# ---- the programs ---------------------------------------------------
# NAME BUDGET COMMAND (a bash script in $tmp, writing a checksum or a
# small result on stdout). Budgets are about 65 % of each program's peak
# as the kernel's memory cgroup measures it (peak_MB below), but xz's:
# its 94 MB of anon are most of its peak, and at 80M the kernel's memory
# cgroup OOM-kills it with swap free, so it runs at 96M.
programs="xz python3 perl node java redis git"

have() { command -v "$1" >/dev/null 2>&1; }
needs() {	# PROGRAM -> the commands it needs
	case $1 in
	xz) echo xz ;;
	python3) echo /usr/bin/python3 ;;
	perl) echo perl ;;
	node) echo node ;;
	java) echo "java javac" ;;
	redis) echo "redis-server redis-cli" ;;
	git) echo git ;;
	esac
}
budget() {
	case $1 in
	xz) echo 96M ;;
	python3) echo 96M ;;
	perl) echo 196M ;;
	node) echo 240M ;;
	java) echo 236M ;;
	redis) echo 220M ;;
	git) echo 44M ;;
	esac
}

# Inputs, made once, outside the timed runs.
setup() {
	case $1 in
	xz)	# 6 MB of text from a fixed seed: compressible, not trivial
		awk 'BEGIN { srand(1); while (n < 6291456) {
			l = ""; for (w = 0; w < 12; w++)
				l = l sprintf("w%d ", int(rand() * rand() * 50000))
			print l; n += length(l) + 1 } }' >"$tmp/xz.in"
		echo 'xz -6 -T1 -c xz.in | sha256sum' ;;
	python3)	# sort 3 M floats
		echo '/usr/bin/python3 -c "
import random, hashlib
random.seed(1)
a = [random.random() for _ in range(3000000)]
a.sort()
print(hashlib.sha256(repr(a[::997]).encode()).hexdigest())"' ;;
	perl)	# a 1.5 M-key hash, written and read back
		echo "perl -e 'my %h; \$h{\"key\$_\"} = \$_ * 3 for 1 .. 1500000;
my \$s = 0; \$s += \$h{\"key\$_\"} for reverse 1 .. 1500000;
print scalar(keys %h), \" \$s\\n\"'" ;;
	node)	# 2 M objects kept in an array, then walked
		echo "node --max-old-space-size=2048 -e '
const a = [];
for (let i = 0; i < 2000000; i++) a.push({ i, s: \"o\" + i, d: i * 0.5 });
let s = 0;
for (let k = 0; k < 3; k++) for (const o of a) s += o.d + o.s.length;
console.log(a.length, s);'" ;;
	java)	# a 2 M-entry HashMap (compiled here, outside the runs)
		mkdir -p "$tmp/java"
		cat >"$tmp/java/Bench.java" <<-'EOF'
		import java.util.HashMap;
		public class Bench {
		    public static void main(String[] a) {
		        HashMap<Integer, String> m = new HashMap<>();
		        for (int i = 0; i < 2000000; i++) m.put(i, "v" + i);
		        long s = 0;
		        for (int k = 0; k < 3; k++)
		            for (int i = 1999999; i >= 0; i--) s += m.get(i).length();
		        System.out.println(m.size() + " " + s);
		    }
		}
		EOF
		javac -d "$tmp/java" "$tmp/java/Bench.java" || return 1
		# A fixed heap: the JVM sizes its own from a cgroup's limit,
		# which the kernel's run has and the pager's has not.
		echo 'java -Xmx1g -Xms16m -XX:+UseSerialGC -cp java Bench' ;;
	redis)	# 150 k SETs of 1 KB through redis-cli --pipe, 100 k GETs
		awk 'BEGIN { v = sprintf("%1000s", ""); gsub(/ /, "v", v)
			for (i = 0; i < 150000; i++) {
				k = "key:" i
				printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%d%s\r\n",
					length(k), k, length(i v), i, v } }' >"$tmp/redis.set"
		awk 'BEGIN { srand(2); for (i = 0; i < 100000; i++)
			print "GET key:" int(rand() * 150000) }' >"$tmp/redis.get"
		cat >"$tmp/redis.sh" <<-'EOF'
		d=$(mktemp -d redis.XXXXXX)
		redis-server --port 0 --unixsocket "$PWD/$d/s" --save '' \
			--appendonly no --dir "$PWD/$d" --logfile "$PWD/$d/log" &
		for _ in $(seq 200); do
			[ "$(redis-cli -s "$d/s" ping 2>/dev/null)" = PONG ] && break
			sleep 0.02
		done
		redis-cli -s "$d/s" --pipe <redis.set | tail -1 >&2
		redis-cli -s "$d/s" <redis.get | sha256sum
		r=$?
		redis-cli -s "$d/s" dbsize
		redis-cli -s "$d/s" shutdown nosave >/dev/null 2>&1
		wait
		rm -rf "$d"
		exit $r
		EOF
		echo 'bash redis.sh' ;;
	git)	# log -p and fsck of a 3000-commit repository, packed
		git init -q -b main "$tmp/repo" || return 1
		awk 'BEGIN { for (c = 1; c <= 3000; c++) {
			printf "commit refs/heads/main\n"
			printf "committer B <b@example> %d +0000\n", 1700000000 + c * 60
			m = "change " c; printf "data %d\n%s\n", length(m), m
			for (f = 0; f < 5; f++) {
				p = sprintf("dir%d/file%d.txt", (c * 7 + f) % 20, (c * 13 + f * 5) % 50)
				d = ""; for (l = 0; l < 120; l++) d = d sprintf("line %d of %d in %d\n", l, c, f)
				printf "M 644 inline %s\ndata %d\n%s\n", p, length(d), d
			} } }' | git -C "$tmp/repo" fast-import --quiet || return 1
		git -C "$tmp/repo" repack -adq || return 1
		echo 'git -C repo log -p main | sha256sum && git -C repo fsck --full --no-progress && git -C repo count-objects -v | grep -c pack' ;;
	esac
}

# The value of NAME in a results.csv for CONFIG, averaged over its runs;
# empty when the runs failed or lack it.
value() {	# FILE CONFIG NAME
	awk -F, -v c="$2" -v n="$3" '$1 == c && $3 == n { s += $4; k++ }
		END { if (k) printf "%.6g", s / k }' "$1"
}
# The same, the median of the runs.
median() {	# FILE CONFIG NAME
	awk -F, -v c="$2" -v n="$3" '$1 == c && $3 == n { print $4 }' "$1" |
		sort -g | awk '{ v[NR] = $1 }
		END { if (NR % 2) printf "%.6g", v[(NR + 1) / 2]
		      else if (NR) printf "%.6g", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
failed() {	# FILE -> "config run reason" of each failed run
	awk -F, '$3 == "failed" { print $1, $2, $4 }' "$1"
}

only=${BENCH_ONLY:-$programs}
take_floors before
status=0
rows=
for p in $only; do
	need=$(needs "$p")
	if [ -z "$need" ]; then
		echo "bench-pressure: unknown program '$p' (one of: $programs)" >&2
		status=1
		continue
	fi
	missing=
	for c in $need; do have "$c" || missing="$missing $c"; done
	if [ -n "$missing" ]; then
		rows="$rows$p skipped (not installed:$missing)\n"
		continue
	fi
	if ! cmd=$(cd "$tmp" && setup "$p"); then
		rows="$rows$p skipped (its input could not be made)\n"
		status=1
		continue
	fi
	# Its own bash: pipefail does not cross into it by itself.
	printf 'set -o pipefail\n%s\n' "$cmd" >"$tmp/$p.cmd"
	for mem in "$(budget "$p")" "$ample"; do
		kind=pressure
		[ "$mem" = "$ample" ] && kind=ample
		exp=$tmp/$p-$kind.exp
		cat >"$exp" <<-EOF
		title     bench-pressure: $p in $mem
		workload  bash $tmp/$p.cmd
		dir       .
		mem       $mem
		swap      4G
		repeat    $([ $kind = pressure ] && echo "$repeat" || echo "$ample_repeat")
		timeout   900
		config    pager$([ $kind = pressure ] && echo " memcg")
		config    kernel native
		$([ $kind = pressure ] && echo "config    global")
		EOF
		echo "bench-pressure: $p in $mem ..." >&2
		(cd "$tmp" && "$PAGER" experiment -o "$tmp/$p-$kind" "$exp") \
			>"$tmp/$p-$kind.log" 2>&1
	done
	P=$tmp/$p-pressure/results.csv
	A=$tmp/$p-ample/results.csv
	# The native output: the kernel's run with ample memory, its first.
	ref=$tmp/$p-ample/kernel-0.out
	same=same
	for o in "$tmp/$p"-*/*.out; do
		[ -s "$ref" ] && cmp -s "$o" "$ref" || { same=DIFFERS; status=1; }
	done
	for f in "$P" "$A"; do
		[ -f "$f" ] || { same=failed; status=1; continue; }
		if [ -n "$(failed "$f")" ]; then
			same="failed"
			status=1
			failed "$f" | sed "s|^|bench-pressure: $p: failed run: |" >&2
		fi
	done
	[ "$same" = same ] || sed -n '1,40p' "$tmp/$p-pressure.log" >&2
	ks=$(median "$P" kernel elapsed_s)
	ps=$(median "$P" pager elapsed_s)
	peak=$(value "$A" kernel memory_peak_kb)
	young=$(value "$P" pager pgfault_young)
	swapin=$(value "$P" pager pswpin)
	faults=$(value "$P" pager pgfault)
	cpu=$(value "$P" pager pager_cpu_us)
	gs=$(median "$P" global elapsed_s)
	aks=$(median "$A" kernel elapsed_s)
	aps=$(median "$A" pager elapsed_s)
	# The memory each side ran in under pressure (MB): the kernel's memory
	# cgroup's max_usage_in_bytes; the pager's largest process's VmHWM
	# and its charged pages' peak (memory.peak).
	kpk=$(median "$P" kernel memory_peak_kb)
	phwm=$(median "$P" pager maxrss_kb)
	ppk=$(median "$P" pager memory_peak_kb)
	rows="$rows$(awk -v p="$p" -v b="$(budget "$p")" -v peak="$peak" \
		-v kpk="$kpk" -v phwm="$phwm" -v ppk="$ppk" \
		-v ks="$ks" -v ps="$ps" -v y="$young" -v i="$swapin" \
		-v f="$faults" -v c="$cpu" -v aks="$aks" -v aps="$aps" -v gs="$gs" \
		-v same="$same" 'function r(a, b) { return a > 0 && b > 0 ? a / b : -1 }
		function mb(kb) { return kb > 0 ? sprintf("%d", kb / 1024) : "-" }
		BEGIN { printf("%-8s %5s %8s %9s %9s %6s %9s %8s %8s %8s %7s %7s %7s  %s",
			p, b, peak ? sprintf("%d", peak / 1024) : "-",
			ks ? sprintf("%.3f", ks) : "-", ps ? sprintf("%.3f", ps) : "-",
			r(ps, ks) > 0 ? sprintf("%.2f", r(ps, ks)) : "-",
			i > 0 ? sprintf("%.1f", y / i) : "-",
			f > 0 ? sprintf("%.1f", c / f) : "-",
			r(gs, ks) > 0 ? sprintf("%.2f", r(gs, ks)) : "-",
			r(aps, aks) > 0 ? sprintf("%.3f", r(aps, aks)) : "-",
			mb(kpk), mb(phwm), mb(ppk), same) }')\n"
done

{
	printf '%-8s %5s %8s %9s %9s %6s %9s %8s %8s %8s %7s %7s %7s  %s\n' \
		program budget peak_MB kernel_s pager_s ratio young/in \
		us/fault global_r ample_r k_mcg p_hwm p_peak output
	printf "$rows"
} | tee "$tmp/table.txt"
# The geometric means over the programs that ran, and the worst.
awk '$NF == "same" && $6 != "-" {
		n++; g += log($6); if ($6 > w) w = $6
		if ($9 != "-") { k++; q += log($9) }
		if ($10 != "-") { m++; a += log($10) } }
	END {
		if (!n) { print "bench-pressure: no program ran"; exit }
		printf "ratio geometric mean pager / kernel under pressure  %.2f  (goal <= 1.5)\n", exp(g / n)
		printf "ratio worst pager / kernel under pressure            %.2f  (goal <= 2.5)\n", w
		if (k) printf "ratio geometric mean global pager / kernel           %.2f\n", exp(q / k)
		if (m) printf "ratio geometric mean pager / kernel, ample memory    %.2f  (goal <= 1.05)\n", exp(a / m) }' \
	"$tmp/table.txt"
take_floors after
if echo "$floors_seen" | grep -q '^floor_'; then
	echo "host floors, this run (us a page; before / after the runs; docs/testing.md has other hosts'):"
	for k in native_first_touch_us missing_copy_us missing_copy_blocked_us minor_continue_us; do
		printf '  %-26s %6s / %s\n' "$k" \
			"$(echo "$floors_seen" | awk -v k="$k" '$1 == "floor_before" && $2 == k { print $3 }')" \
			"$(echo "$floors_seen" | awk -v k="$k" '$1 == "floor_after" && $2 == k { print $3 }')"
	done
else
	echo "host floors: not measured (no $floors; make bench builds it)"
fi
exit $status
