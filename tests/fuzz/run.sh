#!/bin/sh
# run.sh SRCDIR FUZZER...: `make fuzz`. Runs each libFuzzer harness for
# FUZZ_SECONDS (60) from its seeds, prints its executions and crashes,
# and exits 1 if any crashed (its input is left as tests/fuzz/crash-*).
set -u
srcdir=$1
shift
secs=${FUZZ_SECONDS:-60}
failed=0
for f in "$@"; do
	name=${f##*/fuzz-}
	corpus=tests/fuzz/corpus-$name
	seeds=tests/fuzz/seeds-$name
	mkdir -p "$corpus" "$seeds"
	case $name in
	ctl) cp "$srcdir"/tests/fuzz/seeds-ctl/* "$seeds"/ ;;
	trace) cp "$srcdir"/tests/traces/* "$seeds"/ ;;
	lru-gen) cp "$srcdir"/tests/traces/mglru-* "$seeds"/ ;;
	experiment) cp "$srcdir"/examples/*.exp "$seeds"/ ;;
	esac
	"$f" -max_total_time="$secs" -print_final_stats=1 -max_len=65536 \
		-timeout=10 -rss_limit_mb=4096 -artifact_prefix=tests/fuzz/ \
		"$corpus" "$seeds" >"tests/fuzz/$name.log" 2>&1
	rc=$?
	execs=$(awk '/stat::number_of_executed_units/ { print $2 }' \
		"tests/fuzz/$name.log")
	crashes=$([ "$rc" = 0 ] && echo 0 || echo 1)
	echo "fuzz-$name: ${secs} s, ${execs:-0} executions, crashes: $crashes," \
	     "corpus $(ls "$corpus" | wc -l) inputs"
	if [ "$rc" != 0 ]; then
		failed=1
		grep -E "ERROR|SUMMARY|Test unit written" "tests/fuzz/$name.log" |
			head -5 | sed 's/^/    /'
	fi
done
exit $failed
