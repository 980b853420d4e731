#!/bin/sh
# Bad input at the command line gets a clear message and the documented
# exit status: 2 for usage errors, 1 for bad files.
set -u
n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'mmap 1 0x1000 8K anon\nw 1 0x1000 8K\n' > "$tmp/ok.trace"

# expect STATUS PATTERN DESCRIPTION -- COMMAND...
expect() {
	want=$1 pat=$2 desc=$3
	shift 4
	n=$((n + 1))
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && printf '%s' "$out" | grep -q -- "$pat"; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		echo "#   exit $rc (want $want); output:"
		printf '%s\n' "$out" | head -5 | sed 's/^/#     /'
	fi
}

if "$PAGER" run --help >/dev/null 2>&1; then
	daemon=yes
	echo "1..30"
else
	daemon=
	echo "1..19"
fi
expect 2 'usage: pager' "no command" -- "$PAGER"
expect 2 "unknown command 'frob'" "unknown command" -- "$PAGER" frob
expect 2 'required' "sim without a budget" -- "$PAGER" sim "$tmp/ok.trace"
expect 2 "bad size '12X'" "bad size" -- "$PAGER" sim --mem 12X "$tmp/ok.trace"
expect 2 'unrecognized option' "unknown option" -- "$PAGER" sim --frob --mem 1M "$tmp/ok.trace"
expect 2 'unknown tunable' "unknown tunable" -- "$PAGER" sim --mem 1M --set vm.nope=1 "$tmp/ok.trace"
expect 2 'out of range' "tunable out of range" -- "$PAGER" sim --mem 1M --set vm.swappiness=201 "$tmp/ok.trace"
expect 2 'expected on or off' "bad switch value" -- "$PAGER" sim --mem 1M --set use_once_mapped=maybe "$tmp/ok.trace"
expect 2 "unknown policy 'fifo'" "unknown policy" -- "$PAGER" sim --policy fifo --mem 1M "$tmp/ok.trace"
expect 1 "cannot open" "missing trace" -- "$PAGER" sim --mem 1M "$tmp/none.trace"

printf 'mmap 1 0x1000 8K anon\nw 1 0x9000\n' > "$tmp/unmapped.trace"
expect 1 'unmapped.trace:2: access to 0x9000 of process 1, which is not mapped' \
	"access outside any mapping names file:line" -- "$PAGER" sim --mem 1M "$tmp/unmapped.trace"
printf 'mmap 1 0x1000 8K anon\nmmap 1 0x9000 4K banana\n' > "$tmp/bad.trace"
expect 1 'bad.trace:2: mmap: expected type anon or file' \
	"malformed line names file:line" -- "$PAGER" sim --mem 1M "$tmp/bad.trace"
printf 'set vm.frob=1\n' > "$tmp/set.trace"
expect 1 'set vm.frob=1: unknown tunable' "bad set in a trace" -- "$PAGER" sim --mem 1M "$tmp/set.trace"

expect 0 'refs 2' "a good trace from standard input" -- sh -c "\"$PAGER\" sim --pages 64 - < \"$tmp/ok.trace\""
"$PAGER" convert --binary "$tmp/ok.trace" "$tmp/ok.bin"
"$PAGER" convert --text "$tmp/ok.bin" "$tmp/ok2.trace"
expect 0 'refs 2' "text -> binary -> text keeps the trace" -- "$PAGER" sim --pages 64 "$tmp/ok2.trace"
expect 2 'gen' "gen without a kind" -- "$PAGER" gen
expect 2 'pmbench needs --refs M' "gen pmbench without --refs" -- "$PAGER" gen pmbench --pages 10
expect 2 '--hot-every must be at least 1' "gen stream with the anon set written every 0 chunks" \
	-- "$PAGER" gen stream --file 1M --hot 64K --hot-every 0
expect 0 'refs 6000' "gen pmbench: a touch of each page, then the accesses, replayed" \
	-- sh -c "\"$PAGER\" gen pmbench --pages 1000 --refs 5000 --binary | \"$PAGER\" sim --pages 512 -"

[ -n "$daemon" ] || exit 0
# The daemon's commands: usage errors never start anything.
expect 2 'unrecognized option' "run: unknown option" -- "$PAGER" run --frob -- true
expect 2 "bad size '12X'" "run: bad size" -- "$PAGER" run --mem 12X -- true
expect 2 'too small to run anything: at least 4M' "run: budget too small" -- "$PAGER" run --mem 1M -- true
expect 2 'missing CMD' "run: no command" -- "$PAGER" run --mem 8M
expect 2 "bad swap size 'lots'" "daemon: bad swap size" -- "$PAGER" daemon --swap-size lots
expect 1 "cannot open swap file '/nonexistent/dir/swap': No such file or directory" \
	"run: a swap file that cannot be created" -- "$PAGER" run --swap /nonexistent/dir/swap -- true
expect 1 "no pager daemon at '$tmp/none.sock'" "stat: no daemon at the socket" \
	-- "$PAGER" stat --socket "$tmp/none.sock"
expect 1 "no pager daemon at '$tmp/none.sock'" "set: no daemon at the socket" \
	-- "$PAGER" set --socket "$tmp/none.sock" vm.swappiness=10
expect 2 'usage: pager set' "set: nothing to set" -- "$PAGER" set
expect 2 'usage: pager stat' "stat: bad arguments" -- "$PAGER" stat --frob
expect 2 'usage: pager vmstat' "vmstat: bad interval" -- "$PAGER" vmstat zero
