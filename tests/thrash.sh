#!/bin/sh
# Seed 000 at the scale of kernel-anchors.md (thrash 440 120 10 in a 512 MB
# budget): with swap, refault_scan_anon=off refaults the file on every
# round while on (the default) serves the rounds from cache after the
# first few; without swap both refault on every round, because anon
# cannot be reclaimed at all and the file gets only what anon leaves.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PAGER" gen thrash --anon 440M --file 120M --rounds 10 -o "$tmp/thrash.trace" || exit 1
file_pages=30720

# rounds ARGS...: the misses of rounds 0..9, one line
rounds() {
	"$PAGER" sim --mem 512M "$@" "$tmp/thrash.trace" |
		awk '/^phase\.round[0-9]+\.misses / { printf "%s ", $2 }'
}
# every FRACTION ROUNDS: each round missed at least FRACTION of the file
every() {
	echo "$2" | awk -v f="$1" -v n="$file_pages" '
		{ for (i = 1; i <= NF; i++) if ($i < f * n) bad++ }
		END { exit (NF == 10 && !bad) ? 0 : 1 }'
}

n=0
ok() {
	n=$((n + 1))
	if eval "$1"; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
echo "1..5"
on=$(rounds)
off=$(rounds --set refault_scan_anon=off)
on_noswap=$(rounds --no-swap)
off_noswap=$(rounds --no-swap --set refault_scan_anon=off)
echo "# with swap, on:  $on"
echo "# with swap, off: $off"
echo "# no swap, on:    $on_noswap"
echo "# no swap, off:   $off_noswap"
ok 'every 0.8 "$off"' "swap, off: every round refaults at least 80% of the file"
ok 'echo "$on" | awk "{ exit (\$5 + \$6 + \$7 + \$8 + \$9 + \$10) ? 1 : 0 }"' \
	"swap, on: rounds 4-9 refault nothing"
ok 'echo "$on" | awk "{ exit (\$1 > 0.9 * $file_pages) ? 0 : 1 }"' \
	"swap, on: round 0 reads the whole file"
ok 'every 0.8 "$on_noswap"' "no swap, on: every round refaults"
ok 'every 0.8 "$off_noswap"' "no swap, off: every round refaults"
