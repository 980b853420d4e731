#!/bin/sh
# policy/ stays pure: its objects may call only these C library functions
# (and sanitizer hooks). A stray clock_gettime or printf shows up here.
set -u
allowed='^(malloc|calloc|realloc|free|memset|memcpy|memmove|memcmp|strlen|strcmp|strncmp|strchr|strcpy|abort|__assert_fail|__stack_chk_fail|__(a|ub|l)san_.*|__sanitizer_.*|__asan_.*)$'
echo "1..2"
lib="$top_builddir/libpol.a"
if [ ! -f "$lib" ]; then
	echo "not ok 1 - libpol.a built"; echo "not ok 2 - # SKIP"; exit 0
fi
echo "ok 1 - libpol.a built"
bad=$(nm -u "$lib" | awk 'NF == 2 { print $2 }' | sort -u | grep -v '^pol_' |
      grep -Ev "$allowed")
if [ -z "$bad" ]; then
	echo "ok 2 - policy objects call only the allowed C library functions"
else
	echo "not ok 2 - policy objects call only the allowed C library functions"
	echo "$bad" | sed 's/^/#   not allowed: /'
fi
