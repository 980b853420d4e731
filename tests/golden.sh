#!/bin/sh
# Golden traces: every tests/traces/*.trace replayed by `pager sim --check`
# (the policy's invariants checked after every event) with the options of
# its "# sim:" line. A trace passes when each of its expect lines holds.
set -u
traces=$(ls "$top_srcdir"/tests/traces/*.trace)
echo "1..$(echo "$traces" | wc -l)"
n=0
for t in $traces; do
	n=$((n + 1))
	args=$(sed -n 's/^# sim: //p' "$t")
	if out=$("$PAGER" sim $args --check "$t" 2>&1 >/dev/null); then
		echo "ok $n - $(basename "$t")"
	else
		echo "not ok $n - $(basename "$t")"
		echo "$out" | sed 's/^/#   /'
	fi
done
