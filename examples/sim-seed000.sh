#!/bin/sh
# Seed 000 in the simulator: thrash 440 120 10 (kernel-anchors.md's scale
# of the mail's `thrash 2048 200 10`) replayed in a 512M budget with swap,
# with refault_scan_anon off (the kernel before the patch) and on, and
# without swap. Prints the file pages read in each round side by side.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
pager=${PAGER:-$top/pager/pager}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$pager" gen thrash --anon 440M --file 120M --rounds 10 -o "$tmp/thrash.trace"
"$pager" sim --mem 512M --set refault_scan_anon=off "$tmp/thrash.trace" > "$tmp/off"
"$pager" sim --mem 512M "$tmp/thrash.trace" > "$tmp/on"
"$pager" sim --mem 512M --no-swap "$tmp/thrash.trace" > "$tmp/noswap"

echo "seed 000: thrash 440 120 10 in a 512M budget (pager sim)"
echo "file pages read per round (30720 = the whole file)"
printf '%-26s %14s %14s %14s\n' "" "off (5.2)" "on" "on, no swap"
for r in 0 1 2 3 4 5 6 7 8 9; do
	printf '%-26s' "round $r"
	for f in off on noswap; do
		printf ' %14s' "$(awk -v k="phase.round$r.misses" '$1 == k { print $2 }' "$tmp/$f")"
	done
	echo
done
for c in pswpout pswpin pgscan_anon pgscan_file workingset_refault_file \
	 workingset_activate_file pgactivate pgdeactivate; do
	printf '%-26s' "$c"
	for f in off on noswap; do
		printf ' %14s' "$(awk -v k="$c" '$1 == k { print $2 }' "$tmp/$f")"
	done
	echo
done
