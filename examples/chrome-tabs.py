#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""chrome-tabs - real Chromium tabs, driven over the DevTools protocol.

ChromeOS tast's MemoryStressBasic in small: the driver starts headless
Chromium with --remote-debugging-pipe, opens tabs one at a time, each
running a page that builds MB megabytes of JS objects from its own seed,
and after each new tab visits every open tab in turn: it brings the tab to
the front and has it walk all its objects and return their checksum, which
the driver knows from the seed. A wrong answer is a wrong byte somewhere
(exit 1); a tab whose renderer died (the OOM killer, the kernel's or the
pager's) counts as killed.

    chrome-tabs.py [--tabs N] [--mb MB] [--sweeps K] [--limit S]
                   [--until-kill] [--hot H [--rounds R]]
                   [--chromium PATH] [--sandbox]

With --hot, once every tab is open the last H are visited R times more
(hot_visits, hot_p50_ms, hot_p99_ms, hot_s): the working set of a user
whose other tabs wait in the background, as seed 000's mail has it.

Lines as examples/tabs.c prints them: one per tab count (`tabs N p50_ms P
p99_ms Q step_s S`), then `name value` lines: first_kill_s (or -1),
tabs_at_kill, tabs_killed, visits, wrong, visit_p50_ms, visit_p99_ms,
visit_max_ms (every visit before the first kill), open_p50_ms,
limit_reached (1: an answer did not come before --limit: thrashing, which
is no failure), elapsed_s.
Run it under `pager run` and Chromium is under the pager with it. Every
process it started is gone when it returns.
"""
import argparse
import functools
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# The page of tab SEED: MB megabytes of objects, and __check() walks them.
PAGE = """<html><body><script>
const seed = %d, n = %d;
const objs = new Array(n);
for (let k = 0; k < n; k++) {
  const v = (k * 2654435761 + seed * 97) %% 1000003;
  objs[k] = {v: v, w: [v + 1, v + 2, k], s: 'tab' + seed + ':' + k};
}
window.__check = () => {
  let sum = 0;
  for (const o of objs) sum += o.v + o.w[1] + o.s.length;
  return sum;
};
document.title = 'tab ' + seed;
window.__ready = true;
</script></body></html>
"""
OBJECTS_PER_MB = 9000   # about 115 bytes an object in V8, measured


@functools.lru_cache(maxsize=None)
def expected(seed, n):
    total = 0
    for k in range(n):
        v = (k * 2654435761 + seed * 97) % 1000003
        total += v + (v + 2) + len("tab%d:%d" % (seed, k))
    return total


class Browser:
    """Chromium and its DevTools pipe (fd 3 in, fd 4 out, NUL-framed)."""

    def __init__(self, path, sandbox, profile):
        cmd_r, self.cmd_w = os.pipe()
        self.res_r, res_w = os.pipe()
        args = [path, "--headless=new", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync",
                "--disable-features=MediaRouter", "--mute-audio",
                "--remote-debugging-pipe", "--user-data-dir=" + profile,
                "about:blank"]
        if not sandbox:
            args.insert(1, "--no-sandbox")

        def fds():
            os.dup2(cmd_r, 3)
            os.dup2(res_w, 4)
        self.proc = subprocess.Popen(
            args, pass_fds=(3, 4), preexec_fn=fds, start_new_session=True,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(profile, "chrome.log"), "wb"))
        os.close(cmd_r)
        os.close(res_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.deadline = time.monotonic() + 120   # every answer awaited
        self.targets = {}   # session: target
        self.dead = set()   # sessions whose renderer died

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def read(self, timeout):
        """The next message, or None after @timeout seconds."""
        end = time.monotonic() + timeout
        while b"\0" not in self.buf:
            left = end - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.res_r], [], [], left)
            if not r:
                return None
            chunk = os.read(self.res_r, 1 << 20)
            if not chunk:
                raise EOFError("the browser closed its DevTools pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=None):
        if session in self.dead:
            raise RuntimeError("%s: the tab's renderer is gone" % method)
        want = self.send(method, params, session)
        end = self.deadline if timeout is None else \
            time.monotonic() + timeout
        while True:
            msg = self.read(max(0.0, end - time.monotonic()))
            if msg is None:
                if os.environ.get("CHROME_TABS_DEBUG"):
                    print("timeout", method, session, file=sys.stderr)
                raise TimeoutError(method)
            if msg.get("id") == want:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)
                for sess in list(self.targets):
                    if self.crashed(msg, sess):
                        self.dead.add(sess)
                if os.environ.get("CHROME_TABS_DEBUG"):
                    print("event", json.dumps(msg)[:300], file=sys.stderr)
                if session in self.dead:
                    raise RuntimeError("%s: the tab's renderer is gone" %
                                       method)

    def crashed(self, event, session):
        """Does @event say that @session's target died?"""
        method = event.get("method")
        if method == "Inspector.targetCrashed":
            return event.get("sessionId") == session
        if method in ("Target.targetCrashed", "Target.detachedFromTarget"):
            p = event.get("params", {})
            return p.get("sessionId") == session or \
                p.get("targetId") == self.targets.get(session)
        return False

    def attach(self, target):
        session = self.call("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        self.targets[session] = target
        return session

    def close(self):
        try:
            self.send("Browser.close")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        # Every process of its session: renderers, zygotes, crashpad.
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()


def pct(xs, p):
    if not xs:
        return -1
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100.0 * len(xs)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tabs", type=int, default=6)
    ap.add_argument("--mb", type=int, default=40)
    ap.add_argument("--sweeps", type=int, default=3,
                    help="visits of every tab after each new one")
    ap.add_argument("--hot", type=int, default=0,
                    help="then visit the last HOT tabs --rounds times")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--limit", type=float, default=600)
    ap.add_argument("--until-kill", action="store_true",
                    help="stop at the first tab killed")
    ap.add_argument("--chromium", default=shutil.which("chromium") or
                    "/usr/bin/chromium")
    ap.add_argument("--sandbox", action="store_true")
    a = ap.parse_args()

    # The driver and the browser are what ChromeOS keeps alive: an OOM
    # killer (the kernel's or the pager's) takes a tab's renderer, whose
    # score Chromium raises itself (300 and up).
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("-1000")
    except OSError:
        pass
    profile = tempfile.mkdtemp(prefix="chrome-tabs.")
    n = a.mb * OBJECTS_PER_MB
    t0 = time.monotonic()
    b = Browser(a.chromium, a.sandbox, profile)
    b.deadline = t0 + a.limit
    tabs = []           # [seed, target, session, alive]
    visits, wrong, killed = [], 0, 0
    first_kill, tabs_at_kill, opens = -1.0, 0, []
    rc = limit_reached = 0
    hot, hot_t = [], None

    def visit(tab):
        """Bring @tab to the front, check its answer: ms, or None if
        its renderer is gone."""
        nonlocal killed, first_kill, tabs_at_kill, wrong
        if not tab[3]:
            return None
        t = time.monotonic()
        try:
            b.call("Target.activateTarget", {"targetId": tab[1]})
            while True:
                # Asked again after 30 s without an answer: one lost to a
                # renderer swap is not a tab killed (the limit still
                # ends a thrashing run).
                try:
                    r = b.call("Runtime.evaluate",
                               {"expression": "window.__check()",
                                "returnByValue": True}, tab[2],
                               timeout=min(30.0, max(0.1, b.deadline -
                                                     time.monotonic())))
                    break
                except TimeoutError:
                    if time.monotonic() >= b.deadline:
                        raise
        except RuntimeError:
            r = None    # its target is gone
        ms = (time.monotonic() - t) * 1000
        if r is None or tab[2] in b.dead or "exceptionDetails" in r:
            tab[3] = False
            killed += 1
            if first_kill < 0:
                first_kill = time.monotonic() - t0
                tabs_at_kill = len(tabs)
            return None
        got = r.get("result", {}).get("value")
        if got != expected(tab[0], n):
            print("chrome-tabs: tab %d answered %r, not %d" %
                  (tab[0], got, expected(tab[0], n)))
            wrong += 1
        return ms

    try:
        b.call("Target.setDiscoverTargets", {"discover": True})
        for seed in range(a.tabs):
            if time.monotonic() - t0 > a.limit:
                limit_reached = 1
                break
            path = os.path.join(profile, "tab%d.html" % seed)
            with open(path, "w") as f:
                f.write(PAGE % (seed, n))
            t = time.monotonic()
            target = b.call("Target.createTarget",
                            {"url": "file://" + path})["targetId"]
            session = b.attach(target)
            tab = [seed, target, session, True]
            tabs.append(tab)
            try:
                while True:
                    # An evaluation sent while the tab's first navigation
                    # swaps its renderer can be lost (seen after another
                    # renderer was killed): ask again every 5 s.
                    try:
                        r = b.call("Runtime.evaluate",
                                   {"expression": "window.__ready === true",
                                    "returnByValue": True}, session,
                                   timeout=min(5.0, max(0.1, b.deadline -
                                                        time.monotonic())))
                    except TimeoutError:
                        if time.monotonic() >= b.deadline:
                            raise
                        continue
                    if r.get("result", {}).get("value") is True:
                        break
                    time.sleep(0.05)
                opens.append((time.monotonic() - t) * 1000)
            except RuntimeError:
                tab[3] = False      # killed while it was built
                killed += 1
                if first_kill < 0:
                    first_kill = time.monotonic() - t0
                    tabs_at_kill = len(tabs)
                if a.until_kill:
                    break
                continue
            step = []
            for _ in range(a.sweeps):
                for tab in tabs:
                    ms = visit(tab)
                    if ms is None:
                        continue
                    if first_kill < 0:
                        visits.append(ms)
                    step.append(ms)
                if a.until_kill and first_kill >= 0:
                    break
            print("tabs %d p50_ms %.1f p99_ms %.1f step_s %.2f" %
                  (len(tabs), pct(step, 50), pct(step, 99),
                   sum(step) / 1000.0))
            sys.stdout.flush()
            if a.until_kill and first_kill >= 0:
                break
        # The working set of a user with many tabs in the background:
        # the last --hot ones, visited again and again.
        hot_t = time.monotonic()
        for _ in range(a.rounds if a.hot else 0):
            for tab in tabs[-a.hot:]:
                ms = visit(tab)
                if ms is not None:
                    hot.append(ms)
    except TimeoutError:
        # Thrashing past the limit: what the limit is for, no failure.
        print("chrome-tabs: no answer within the limit of %g s" % a.limit)
        limit_reached = 1
    except (EOFError, RuntimeError, OSError) as e:
        print("chrome-tabs: the browser failed: %s" % e)
        rc = 1
    finally:
        b.close()
        shutil.rmtree(profile, ignore_errors=True)
    print("first_kill_s %.2f" % first_kill)
    print("tabs_at_kill %d" % tabs_at_kill)
    print("tabs_killed %d" % killed)
    print("visits %d" % len(visits))
    print("wrong %d" % wrong)
    print("visit_p50_ms %.1f" % pct(visits, 50))
    print("visit_p99_ms %.1f" % pct(visits, 99))
    print("visit_max_ms %.1f" % (max(visits) if visits else -1))
    print("open_p50_ms %.1f" % pct(opens, 50))
    if a.hot:
        print("hot_visits %d" % len(hot))
        print("hot_p50_ms %.1f" % pct(hot, 50))
        print("hot_p99_ms %.1f" % pct(hot, 99))
        print("hot_s %.2f" % (time.monotonic() - hot_t if hot_t else -1))
    print("limit_reached %d" % limit_reached)
    print("elapsed_s %.2f" % (time.monotonic() - t0))
    return 1 if wrong or rc else 0


if __name__ == "__main__":
    sys.exit(main())
