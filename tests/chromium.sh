#!/bin/sh
# Real Chromium under the pager (root, as daemon.sh): Debian's chromium,
# headless, each run under a budget below what it uses natively, so its
# memory is swapped out and in meanwhile; each output against the native
# run's, and nothing of it left behind.
#   - --dump-dom of a page that builds 200000 objects and prints their sum;
#   - a 3-tab session over the DevTools protocol (examples/chrome-tabs.py:
#     40 MB of JS objects a tab, every tab visited 3 times after each new
#     one, each visit's checksum checked).
# Skipped with the reason where chromium is not installed.
set -u
plan=10
. "$top_srcdir/tests/daemon-lib.sh"
CHROMIUM=$(command -v chromium || true)
[ -n "$CHROMIUM" ] || skip_rest "no chromium here (Debian package chromium)"
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/pager-chromium.XXXXXX")
trap 'cleanup; rm -rf "$dir"' EXIT
flags="--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run
	--disable-background-networking --disable-component-update --disable-sync"
crashpads=$(pgrep -c -f chrome_crashpad_handler)

cat >"$dir/page.html" <<'EOF'
<html><body><script>
let a = [], s = 0;
for (let i = 0; i < 200000; i++) a.push({v: i, w: [i, i * 2]});
for (const o of a) s += o.v + o.w[1];
document.body.textContent = 'sum=' + s;
</script></body></html>
EOF

# What is left of a run: its processes (by profile), and its clients.
left() {	# PATTERN of the profile's path
	sleep 1
	procs=$(pgrep -c -f -- "--user-data-dir=$1")
	c=$("$PAGER" stat --socket "$sock" | awk '$1 == "clients" { print $2 }')
	echo "$procs processes, $c clients"
}

# A run's end: its memory (WHOSE: its, their) went to swap, more than MIN
# pages since $out0, and nothing of it (PATTERN, as left()) stayed.
swapped_and_gone() {	# WHOSE MIN PATTERN
	swapped=$(($(stat_of pswpout) - out0))
	check "and $1 memory was swapped out meanwhile (pswpout +$swapped)" \
		"$([ "$swapped" -gt "$2" ]; echo $?)"
	l=$(left "$3")
	check "nothing of it left behind ($l)" \
		"$([ "$l" = "0 processes, 0 clients" ]; echo $?)"
}

# ---- --dump-dom --------------------------------------------------------------
# shellcheck disable=SC2086
native=$("$CHROMIUM" $flags --user-data-dir="$dir/n1" --dump-dom \
	"file://$dir/page.html" 2>/dev/null)
start_daemon 96M || skip_rest "the daemon did not start"
out0=$(stat_of pswpout)
# shellcheck disable=SC2086
out=$(prun "$CHROMIUM" $flags --user-data-dir="$dir/p1" --dump-dom \
	"file://$dir/page.html" 2>"$dir/p1.err")
rc=$?
check "--dump-dom of a page building 200000 objects, in 96M: the native DOM ($(echo "$native" | grep -o 'sum=[0-9]*'))" \
	"$([ $rc = 0 ] && [ -n "$native" ] && [ "$out" = "$native" ]; echo $?)" \
	"status $rc: $(echo "$out" | head -3) $(tail -5 "$dir/p1.err")"
swapped_and_gone its 1000 "$dir/p1"
stop_daemon

# ---- a 3-tab DevTools session ----------------------------------------------
TABS="$top_srcdir/examples/chrome-tabs.py --tabs 3 --mb 40 --sweeps 3"
# shellcheck disable=SC2086
native=$(/usr/bin/python3 $TABS | grep -E '^(visits|wrong|tabs_killed) ')
start_daemon 192M || skip_rest "the daemon did not start"
out0=$(stat_of pswpout)
# shellcheck disable=SC2086
prun /usr/bin/python3 $TABS >"$dir/tabs.out" 2>&1
rc=$?
out=$(grep -E '^(visits|wrong|tabs_killed) ' "$dir/tabs.out")
check "3 tabs of 40 MB of JS objects, each visited 3 times after each new tab, in 192M: every checksum right, none killed, as natively ($(echo $out))" \
	"$([ $rc = 0 ] && [ "$out" = "$native" ] &&
	   echo "$out" | grep -qx 'wrong 0'; echo $?)" \
	"status $rc, native: $(echo $native); $(tail -5 "$dir/tabs.out")"
swapped_and_gone their 10000 ".*/chrome-tabs\\."
stop_daemon
after=$(pgrep -c -f chrome_crashpad_handler)
check "no crash handler left running ($after, $crashpads before)" \
	"$([ "$after" -le "$crashpads" ]; echo $?)"

# ---- with the sandbox on -----------------------------------------------------
# Chromium runs its sandbox only as a user other than root, and no such
# process may have userfaultfd's fork events (they need CAP_SYS_PTRACE):
# pager run says so before anything starts.
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	out=$(cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$PAGER" run --mem 256M -- "$CHROMIUM" --headless=new \
		--dump-dom "file://$dir/page.html" 2>&1)
	rc=$?
	check "with the sandbox on (as nobody): pager run refuses before it starts, saying why (status $rc: $(echo "$out" | cut -c1-80))" \
		"$([ $rc = 1 ] && echo "$out" | grep -q "cannot run '.*' under the pager: " &&
		   ! echo "$out" | grep -q 'sum='; echo $?)" "$out"
else
	skip_one "no setpriv or no user nobody"
fi

# ---- with the sandbox on, under pager run as root ----------------------------
# pager run as root, Chromium as nobody with its sandbox on: the browser
# cannot read root's shim (the run's directories are 0711/0755), may not
# make a userfaultfd with fork events (the daemon's uffd-dev), its zygote
# is 1 of a PID namespace (NSpid), chroots to an empty directory (the
# shim's door), installs seccomp filters (no mmap marker), and clones its
# renderers each into a PID namespace of its own, two at once each 1
# there (told apart by their page tables). docs/chromium.md, steps 1-7.
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	chmod 755 "$dir"
	mkdir -m 777 "$dir/home"
	nobody="setpriv --reuid=nobody --regid=nogroup --clear-groups env
		HOME=$dir/home $CHROMIUM --headless=new --disable-gpu --dump-dom"
	# shellcheck disable=SC2086
	native=$(cd / && $nobody --user-data-dir="$dir/home/n2" \
		"file://$dir/page.html" 2>/dev/null)
	# shellcheck disable=SC2086
	out=$(cd / && timeout -k 5 120 "$PAGER" run --mem 96M \
		--log "$dir/sandbox.log" -v -- $nobody \
		--user-data-dir="$dir/home/p2" "file://$dir/page.html" \
		2>"$dir/p2.err")
	rc=$?
	joined=$(grep -c ' joined ' "$dir/sandbox.log")
	swapped=$(awk '/ swap entries$/ { s += $(NF - 2) } END { print s + 0 }' \
		"$dir/sandbox.log")
	check "sandboxed (as nobody, pager run as root), in 96M: the native DOM ($(echo "$native" | grep -o 'sum=[0-9]*'), $joined processes joined)" \
		"$([ $rc = 0 ] && [ -n "$native" ] && [ "$out" = "$native" ] &&
		   [ "$joined" -gt 3 ]; echo $?)" \
		"status $rc: $(echo "$out" | head -3) $(grep -i pager "$dir/p2.err" | tail -5) $(grep -E 'warn|error' "$dir/sandbox.log" | tail -5)"
	check "and its memory was swapped out meanwhile ($swapped swap entries freed at the ends)" \
		"$([ "$swapped" -gt 1000 ]; echo $?)"
else
	skip_one "no setpriv or no user nobody"
	skip_one "no setpriv or no user nobody"
fi
