# daemon-lib.sh - what the daemon's test scripts share: TAP output, a
# standing daemon on a private socket, bounded runs under it, counters.
# The sourcing script sets plan first.
set -u
tmp=$(mktemp -d)
sock="$tmp/pager.sock"
log="$tmp/daemon.log"
VERIFY="$top_builddir/examples/verify"
n=0
daemon_pid=

cleanup() {
	[ -n "$daemon_pid" ] && kill -9 "$daemon_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "1..$plan"

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	[ $# -gt 1 ] && printf '%s\n' "$2" | head -20 | sed 's/^/#   /'
	[ -f "$log" ] && tail -5 "$log" | sed 's/^/#   log: /'
	return 0
}
check() { if [ "$2" = 0 ]; then ok "$1"; else not_ok "$1" "${3:-}"; fi; }
skip_rest() {
	while [ "$n" -lt "$plan" ]; do
		n=$((n + 1))
		echo "ok $n # SKIP $1"
	done
	exit 0
}
skip_one() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

# ---- can this machine run the daemon? ------------------------------------
if ! "$PAGER" run --help >/dev/null 2>&1; then
	skip_rest "the pager was built without the daemon (liburing, libuv, libseccomp)"
fi
if [ "$(id -u)" != 0 ] &&
   [ "$(cat /proc/sys/vm/unprivileged_userfaultfd 2>/dev/null)" != 1 ] &&
   [ ! -w /dev/userfaultfd ]; then
	skip_rest "userfaultfd needs root here (vm.unprivileged_userfaultfd=0)"
fi
probe=$("$PAGER" run --mem 8M -- /bin/echo probe 2>&1)
if [ "$probe" != probe ]; then
	skip_rest "cannot run under the pager here: $(echo "$probe" | head -1)"
fi

start_daemon() {	# MEM [ARGS...]
	mem=$1
	shift
	rm -f "$sock"
	"$PAGER" daemon --mem "$mem" --socket "$sock" --log "$log" \
		${PAGER_DAEMON_ARGS:-} "$@" &
	daemon_pid=$!
	for _ in $(seq 100); do
		"$PAGER" stat --socket "$sock" >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	return 1
}

stop_daemon() {
	kill "$daemon_pid" 2>/dev/null
	wait "$daemon_pid"
	rc=$?
	daemon_pid=
	return $rc
}

# A run under the standing daemon, bounded: a hang fails its test, not
# the whole script.
prun() {
	timeout -k 5 120 "$PAGER" run --socket "$sock" -- "$@"
}

# prun, and if the run is still going after 60 s, what a hang looks like
# written to "$tmp/hang" (the daemon's counters a second apart, its and
# the program's threads' states and wait channels) for the failure's
# message. Sets prun_rc.
prun_watched() {
	rm -f "$tmp/hang"
	prun "$@" &
	_p=$!
	_t=0
	while kill -0 "$_p" 2>/dev/null && [ "$_t" -lt 600 ]; do
		sleep 0.1
		_t=$((_t + 1))
	done
	if kill -0 "$_p" 2>/dev/null; then
		{
			for v in "$daemon_pid" $(pgrep -x "$(basename "$1")"); do
				for d in /proc/"$v"/task/*; do
					[ -r "$d/stat" ] || continue
					echo "${d#/proc/}: $(cut -d' ' -f3 "$d/stat") $(cat "$d/wchan" 2>/dev/null) $(cat "$d/comm")"
				done
			done
			"$PAGER" stat --socket "$sock" >"$tmp/hang.1" 2>&1
			sleep 1
			"$PAGER" stat --socket "$sock" 2>&1 |
				diff "$tmp/hang.1" - | grep '^>'
		} | head -16 >"$tmp/hang" 2>&1
	fi
	wait "$_p"
	prun_rc=$?
}

stat_of() {	# NAME: the daemon's counter
	"$PAGER" stat --socket "$sock" | awk -v k="$1" '$1 == k { print $2 }'
}

