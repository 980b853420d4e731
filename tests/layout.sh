#!/bin/sh
# The tree's layout, as pager/README.md and each part's README.md state it:
# - at most 3 source files directly in pager/, a README.md in each part;
# - every #include "..." of a part goes where its README's "May include:"
#   line allows (so the shim includes only lib/wire.h and lib/compat.h,
#   sim/ never the daemon, nothing outside cli/ the command line);
#   policy/ includes only policy/;
# - in pager/daemon/, every file is in a part (a sub-folder) its README's
#   block names, and includes only headers of its own part or below, but
#   for the back-edges listed there (each listed one must still exist);
#   of another part it includes the one header that part exports,
#   PART/PART.h;
# - no source file over 900 lines;
# - every file Makefile.am names is in the tree, and not hidden from git
#   by .gitignore (bench-pressure.sh was, and a clean clone had no
#   `make bench`).
set -u
top=$top_srcdir
n=0
fails=0
ok() {
	n=$((n + 1))
	if [ -z "$2" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		printf '%s\n' "$2" | sed 's/^/#   /'
		fails=$((fails + 1))
	fi
}
echo "1..8"

# 1. pager/ itself holds the parts, not their files.
loose=$(cd "$top/pager" && ls -- *.c *.h 2>/dev/null)
count=$(printf '%s' "$loose" | grep -c . || true)
bad=""
[ "$count" -gt 3 ] && bad="$count source files directly in pager/: $loose"
ok "at most 3 source files directly in pager/ ($count)" "$bad"

# 2. Each part says what it is and what it may include.
parts=$(cd "$top/pager" && for d in */; do
	d=${d%/}
	ls "$d"/*.c "$d"/*.h >/dev/null 2>&1 && echo "$d"
done)
bad=""
for d in $parts; do
	f="$top/pager/$d/README.md"
	if [ ! -f "$f" ]; then
		bad="$bad
pager/$d has no README.md"
	elif ! grep -q '^May include: ' "$f"; then
		bad="$bad
pager/$d/README.md has no 'May include:' line"
	fi
done
ok "each part of pager/ has a README.md with its rules ($(echo $parts))" \
	"${bad#?}"

# 3. Includes, part by part: "$1" is the part's folder (from the top),
#    "$2" the allowed prefixes (folders end in /).
check_includes() {
	dir=$1
	allowed=$2
	for src in "$top/$dir"/*.c "$top/$dir"/*.h; do
		[ -f "$src" ] || continue
		grep -o '^#include "[^"]*"' "$src" | sed 's/^#include "//; s/"$//' |
		while read -r inc; do
			to=$(realpath -m --relative-to="$top" \
			     "$(dirname "$src")/$inc")
			fine=""
			for a in $allowed; do
				case $a in
				*/) case $to in "$a"*) fine=1 ;; esac ;;
				*) [ "$to" = "$a" ] && fine=1 ;;
				esac
			done
			[ -n "$fine" ] ||
				echo "$dir/$(basename "$src") includes $to"
		done
	done
}
bad=$(check_includes policy "policy/")
for d in $parts; do
	allowed=$(sed -n 's/^May include: //p' "$top/pager/$d/README.md" |
		  tr ',' ' ')
	bad="$bad
$(check_includes "pager/$d" "$allowed")"
done
bad=$(printf '%s\n' "$bad" | grep . || true)
ok "every include goes where its part's README allows" "$bad"

# 4 and 5. The daemon's parts (pager/daemon/README.md): a sub-folder each,
#    in the order of its "parts:" line; pgr.h and uffd.h, at the top of
#    the folder, are every part's; daemon.c and daemon.h stand above all.
readme="$top/pager/daemon/README.md"
block=$(sed -n '/^```$/,/^```$/p' "$readme")
parts_order=$(printf '%s\n' "$block" | sed -n 's/^parts: //p')
edges=$(printf '%s\n' "$block" |
	sed -n 's/^back-edge \([a-z/-]*\) -> \([a-z/-]*\):.*/\1 \2/p')
rank_of() {
	case $1 in daemon) echo 0; return ;; esac
	i=1
	for q in $parts_order; do
		[ "$q" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
}
bad=""
for src in "$top"/pager/daemon/*.c "$top"/pager/daemon/*.h; do
	case $(basename "$src") in
	pgr.h | uffd.h | daemon.c | daemon.h) ;;
	*) bad="$bad
$(basename "$src") is in pager/daemon/ itself, not in a part" ;;
	esac
done
for d in "$top"/pager/daemon/*/; do
	d=$(basename "$d")
	[ -n "$(rank_of "$d")" ] ||
		bad="$bad
pager/daemon/$d/ is not a part of pager/daemon/README.md"
done
ok "every file of pager/daemon/ is in a part ($(echo $parts_order))" "${bad#?}"

# A daemon file's name as the block writes it: PART/NAME, or NAME at the
# top of the folder; a part's header PART/PART.h is the part, PART.
name_of() {
	rel=${1#"$top"/pager/daemon/}
	rel=${rel%.?}
	case $rel in "${rel%%/*}/${rel%%/*}") rel=${rel%%/*} ;; esac
	echo "$rel"
}
part_of() {
	case $1 in */*) echo "${1%%/*}" ;; daemon | pgr | uffd) echo daemon ;; *) echo "$1" ;; esac
}
up=""
for src in "$top"/pager/daemon/*/*.[ch] "$top"/pager/daemon/*.[ch]; do
	[ -f "$src" ] || continue
	from=$(name_of "$src")
	mine=$(rank_of "$(part_of "$from")")
	for inc in $(sed -n 's/^#include "\([^"]*\)\.h"$/\1/p' "$src"); do
		to=$(realpath -m --relative-to="$top/pager/daemon" \
		     "$(dirname "$src")/$inc")
		case $to in ../*) continue ;; pgr | uffd) continue ;; esac
		to=$(name_of "$top/pager/daemon/$to.h")
		theirs=$(rank_of "$(part_of "$to")")
		[ -n "$theirs" ] && [ "$theirs" -lt "$mine" ] &&
			up="$up
$from $to"
	done
done
up=$(printf '%s\n' "$up" | grep . | sort -u || true)
bad=""
for e in $(printf '%s\n' "$up" | tr ' ' ':'); do
	printf '%s\n' "$edges" | grep -qx "$(echo "$e" | tr ':' ' ')" ||
		bad="$bad
${e%%:*} calls up into ${e#*:}: not a listed back-edge"
done
for e in $(printf '%s\n' "$edges" | tr ' ' ':'); do
	printf '%s\n' "$up" | grep -qx "$(echo "$e" | tr ':' ' ')" ||
		bad="$bad
back-edge ${e%%:*} -> ${e#*:} is listed but no longer exists"
done
ok "daemon calls go down its parts, but for the listed back-edges ($(printf '%s\n' "$edges" | grep -c .))" \
	"${bad#?}"

# 6. One idea per file.
bad=$(cd "$top" && find pager policy tests examples -name '*.[ch]' \
      -exec wc -l {} + | awk '$2 != "total" && $1 > 900 { print $2 " (" $1 " lines)" }')
ok "no source file over 900 lines" "$bad"

# 7. What Makefile.am names, a clean clone has.
bad=$(cd "$top" && grep -oE '(^|[[:space:]=])(tests|examples|pager|policy|docs)/[A-Za-z0-9_./-]+\.(sh|py|exp|c|h|md|trace|am|js)' \
      Makefile.am | sed 's/^[[:space:]=]*//' | sort -u | while read -r f; do
	if [ ! -e "$f" ]; then
		echo "$f: named in Makefile.am, not in the tree"
	elif [ -e .git ] && git check-ignore -q --no-index "$f" 2>/dev/null; then
		echo "$f: named in Makefile.am, ignored by .gitignore"
	fi
done)
ok "every file Makefile.am names is in the tree and not git-ignored" "$bad"

# 8. A part is entered by its header: an include from another part, from
#    daemon.c or from a test names PART/PART.h, never a file's own header.
bad=""
for src in "$top"/pager/daemon/*/*.[ch] "$top"/pager/daemon/*.[ch] \
	   "$top"/tests/*.c "$top"/tests/fuzz/*.c; do
	[ -f "$src" ] || continue
	here=$(realpath -m --relative-to="$top/pager/daemon" "$(dirname "$src")")
	for inc in $(sed -n 's/^#include "\([^"]*\)\.h"$/\1/p' "$src"); do
		to=$(realpath -m --relative-to="$top/pager/daemon" \
		     "$(dirname "$src")/$inc")
		case $to in ../* | pgr | uffd | daemon) continue ;; esac
		p=${to%%/*}
		[ "$p" = "$here" ] || [ "$to" = "$p/$p" ] ||
			bad="$bad
${src#"$top"/} includes $to.h, not $p/$p.h"
	done
done
ok "another part is entered by its header, PART/PART.h" "${bad#?}"
