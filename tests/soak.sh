#!/bin/sh
# make soak: mixed self-verifying workloads (anon, files, fork, threads,
# mappings against read(2), write(2) and truncate)
# against one daemon with a tight budget, while tunables are flipped at
# random, for SOAK_SECONDS (600). Prints the mismatches (must be 0), the
# faults served, the evictions and the OOM kills; exits 1 on a mismatch
# or a workload that failed other than by the OOM killer.
#
#   PAGER=pager/pager VERIFY=examples/verify SOAK_SECONDS=600 sh tests/soak.sh
set -u
# Absolute: the thrash run starts from the working directory.
PAGER=$(realpath "${PAGER:-pager/pager}")
VERIFY=$(realpath "${VERIFY:-examples/verify}")
THRASH=$(realpath "${THRASH:-examples/thrash}")
secs=${SOAK_SECONDS:-600}
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/pager-soak.XXXXXX")
sock=$tmp/pager.sock
# The daemon goes before its Redis server, or it reports the store gone.
trap 'kill $flipper $daemon 2>/dev/null; [ -z "$daemon" ] || wait $daemon
      kill $redis 2>/dev/null
      [ -n "${SOAK_KEEP:-}" ] || rm -rf "$tmp"' EXIT

# SOAK_SWAP: the swap device (--swap: a file, zram, zram:zstd,
# redis://HOST:PORT), or "redis": a redis-server of the soak's own on
# 127.0.0.1, or "zswap": a temporary file with zswap in front of it (its
# knobs flipped too); default a temporary file.
redis=
daemon=
flipper=
zswap=
if [ "${SOAK_SWAP:-}" = zswap ]; then
	SOAK_SWAP=
	zswap="--set zswap.enabled=Y"
fi
if [ "${SOAK_SWAP:-}" = redis ]; then
	port=$((20000 + $$ % 20000))
	redis-server --port "$port" --bind 127.0.0.1 --save '' \
		--appendonly no --dir "$tmp" --logfile "$tmp/redis.log" &
	redis=$!
	for _ in $(seq 100); do
		[ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && break
		sleep 0.05
	done
	SOAK_SWAP=redis://127.0.0.1:$port
fi
"$PAGER" daemon --mem 48M ${SOAK_SWAP:+--swap "$SOAK_SWAP"} $zswap \
	--socket "$sock" --log "$tmp/daemon.log" &
daemon=$!
for _ in $(seq 100); do
	"$PAGER" stat --socket "$sock" >/dev/null 2>&1 && break
	sleep 0.05
done

nflip=7
[ -n "$zswap" ] && nflip=10	# and zswap's three
flip() {	# random tunables, once a second
	while :; do
		case $(( $(od -An -N1 -tu1 /dev/urandom) % nflip )) in
		0) kv="use_once_mapped=$(shuf -n1 -e on off)" ;;
		1) kv="refault_scan_anon=$(shuf -n1 -e on off)" ;;
		2) kv="vm.swappiness=$(shuf -n1 -e 0 10 60 100 200)" ;;
		3) kv="read_ahead_kb=$(shuf -n1 -e 0 4 128 1024)" ;;
		4) kv="fault_around_bytes=$(shuf -n1 -e 4096 65536 262144)" ;;
		5) kv="vm.page-cluster=$(shuf -n1 -e 0 3 6)" ;;
		6) kv="lru_gen.enabled=$(shuf -n1 -e y n)" ;;
		7) kv="zswap.enabled=$(shuf -n1 -e Y N)" ;;
		8) kv="zswap.compressor=$(shuf -n1 -e lz4 zstd)" ;;
		9) kv="zswap.max_pool_percent=$(shuf -n1 -e 5 20 50)" ;;
		esac
		"$PAGER" set --socket "$sock" "$kv" >/dev/null 2>&1
		sleep 1
	done
}
flip &
flipper=$!

run() {	# NAME CMD...: one workload, its output kept
	name=$1
	shift
	timeout -k 5 300 "$PAGER" run --socket "$sock" -- "$@" \
		>"$tmp/$name.$$.$(date +%s%N).out" 2>&1
	echo $? >>"$tmp/$name.status"
}

end=$(( $(date +%s) + secs ))
round=0
# The daemon must answer, not merely exist: a dead one not yet waited for
# still takes kill -0, and the rounds would spin.
while [ "$(date +%s)" -lt "$end" ] &&
      "$PAGER" stat --socket "$sock" >/dev/null 2>&1; do
	round=$((round + 1))
	run anon "$VERIFY" --mb 64 --seed $round passes threads fork mremap regrow &
	pids=$!
	run files "$VERIFY" --mb 48 --seed $round --file "$tmp/f$round" \
		fshared fprivate ftwo &
	pids="$pids $!"
	run pipe "$VERIFY" --mb 32 --seed $round --compressible 75 \
		dontneed munmap pipe &
	pids="$pids $!"
	# Coherence: four processes' random calls on one file against a
	# model of it, and the system calls' modes.
	run coherence "$VERIFY" --mb 24 --seed $round --file "$tmp/c$round" \
		fstress fwrite fread fgrow fremap ftrunc fraw fwb fredirty &
	pids="$pids $!"
	if command -v stress-ng >/dev/null; then
		run stress stress-ng --vm 2 --vm-bytes 32M --vm-method all \
			--verify --timeout 10s &
		pids="$pids $!"
	fi
	(cd "$tmp" && run thrash "$THRASH" 40 24 4) &
	pids="$pids $!"
	# The round's own: `jobs -p` in a command substitution lists none in
	# some shells (dash under timeout(1)), and the rounds spun.
	for j in $pids; do wait "$j"; done
	rm -f "$tmp"/f"$round"* "$tmp"/c"$round"*
done

bad=$(cat "$tmp"/*.out 2>/dev/null | awk '
	/words wrong/ { for (i = 1; i <= NF; i++) if ($i == "words") n += $(i - 1); next }
	/read wrong|mismatch|lost its|read [0-9]+, the file holds/ { n++; next }
	/stress-ng/ && /fail/ && !/failed: 0/ { n++ }
	END { print n + 0 }')
failed=$(cat "$tmp"/*.status | awk '$1 != 0 && $1 != 137 { n++ } END { print n + 0 }')
runs=$(cat "$tmp"/*.status | wc -l)
stat=$("$PAGER" stat --socket "$sock" 2>/dev/null)
v() { echo "$stat" | awk -v k="$1" '$1 == k { print $2 }'; }
echo "soak: $secs s, $round rounds, $runs runs under one 48M daemon"
echo "mismatches $bad"
echo "runs_failed $failed (other than OOM kills)"
echo "faults_served $(v pgfault)"
echo "evictions $(( $(v pgsteal_anon)+0 + $(v pgsteal_file)+0 )) (anon $(v pgsteal_anon), file $(v pgsteal_file))"
echo "pswpout $(v pswpout)"
echo "oom_kills $(v oom_kill)"
[ -n "$zswap" ] && echo "zswpout $(v zswpout) zswpin $(v zswpin) zswpwb $(v zswpwb)"
if ! kill -0 "$daemon" 2>/dev/null; then
	echo "soak: the daemon died"; tail -5 "$tmp/daemon.log"; exit 1
fi
[ "$bad" = 0 ] && [ "$failed" = 0 ]
