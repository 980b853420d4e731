#!/bin/sh
# Seed 003's workload, under a pager daemon ($PAGER_SOCKET, as `pager run`
# and `pager experiment` give it): page cache spread over many small
# files in a protected group, then an anonymous filler outside it.
#
#   seed003.sh FILES KB LOW FILLER_MB
#
# FILES files of KB KiB are read through mmap in group "prot" (left
# cached, unused), memory.low@prot is set to LOW, and `usemem FILLER_MB`
# runs in the root group. Prints the protected group's page cache before
# and after the filler (prot_cache_before_mb, prot_cache_after_mb), the
# filler's time (usemem_s) and the low setting (low_mb).
set -eu
pager=${PAGER_BIN:-$(dirname "$0")/../pager/pager}
[ -x "$pager" ] || pager=pager
cache() {
	"$pager" stat --group prot |
	awk '$1 == "nr_active_file" || $1 == "nr_inactive_file" { s += $2 }
	     END { printf "%.1f\n", s * 4 / 1024 }'
}
PAGER_GROUP=prot smallfiles data "$1" "$2" >/dev/null
"$pager" set "memory.low@prot=$3"
echo "prot_cache_before_mb $(cache)"
usemem "$4" 2
echo "prot_cache_after_mb $(cache)"
echo "low_mb $(echo "$3" | sed 's/M$//')"
