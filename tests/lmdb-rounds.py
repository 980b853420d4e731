#!/usr/bin/python3
# lmdb-rounds.py - python3-lmdb's pattern (pwrite(2) writes, reads through a
# read-only shared mapping), checked value by value: coherence.sh runs it
# under the pager and natively and compares what it prints.
#   single PATH ROUNDS N   put N keys a round (transactions of 1000), then
#                          get each back; print the wrong values
#   writer PATH ROUNDS N   the same puts; "round R" after each, then wait
#                          for a line on stdin (the reader's)
#   reader PATH N          for each "round R" on stdin: get every key, say
#                          "checked R wrong W", and "ok" on stderr
import hashlib
import sys

import lmdb


def val(r, i):
    return hashlib.sha256(b'%d %d' % (r, i)).digest() * 8


def put_round(env, r, n):
    for b in range(0, n, 1000):
        with env.begin(write=True) as t:
            for i in range(b, min(n, b + 1000)):
                t.put(b'k%08d' % i, val(r, i))


def wrong(env, r, n):
    with env.begin() as t:
        return sum(t.get(b'k%08d' % i) != val(r, i) for i in range(n))


mode, path = sys.argv[1], sys.argv[2]
env = lmdb.open(path, map_size=1 << 30)
if mode == 'single':
    rounds, n = int(sys.argv[3]), int(sys.argv[4])
    bad = 0
    for r in range(rounds):
        put_round(env, r, n)
        bad += wrong(env, r, n)
    print('rounds', rounds, 'keys', n, 'wrong', bad)
elif mode == 'writer':
    rounds, n = int(sys.argv[3]), int(sys.argv[4])
    for r in range(rounds):
        put_round(env, r, n)
        print('round', r, flush=True)
        sys.stdin.readline()
else:
    n, bad = int(sys.argv[3]), 0
    for line in sys.stdin:
        r = int(line.split()[1])
        bad += wrong(env, r, n)
        print('checked', r, 'wrong', bad, flush=True)
        print('ok', file=sys.stderr, flush=True)
