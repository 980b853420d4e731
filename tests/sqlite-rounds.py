#!/usr/bin/python3
# sqlite-rounds.py - sqlite3 in WAL mode with mmap_size (its pwrite(2)s
# read back through its mapping, its -shm file mapped by every process),
# checked row by row: coherence.sh runs the writer and the reader under
# the pager, or one of them outside it, and compares with a native run.
#   writer PATH ROUNDS N   replace N rows a round, checkpoint every other
#                          round; "round R", then wait for a line on stdin
#   reader PATH N          for each "round R" on stdin: check every row
#                          (a new connection each time), "checked R wrong
#                          W", and "ok" on stderr
import sqlite3
import sys


def row(r, k):
    return bytes([(k + r) % 251]) * 200


mode, path, n = sys.argv[1], sys.argv[2], int(sys.argv[-1])
if mode == 'writer':
    rounds = int(sys.argv[3])
    db = sqlite3.connect(path, isolation_level=None)
    db.execute('PRAGMA journal_mode=WAL')
    db.execute('PRAGMA mmap_size=268435456')
    db.execute('CREATE TABLE IF NOT EXISTS t '
               '(k INTEGER PRIMARY KEY, r INTEGER, v BLOB)')
    for r in range(rounds):
        db.execute('BEGIN')
        for k in range(n):
            db.execute('INSERT OR REPLACE INTO t VALUES (?, ?, ?)',
                       (k, r, row(r, k)))
        db.execute('COMMIT')
        if r % 2:
            db.execute('PRAGMA wal_checkpoint(TRUNCATE)')
        print('round', r, flush=True)
        sys.stdin.readline()
else:
    bad = 0
    for line in sys.stdin:
        r = int(line.split()[1])
        db = sqlite3.connect(path)
        db.execute('PRAGMA mmap_size=268435456')
        for k, rr, v in db.execute('SELECT k, r, v FROM t'):
            bad += rr != r or v != row(r, k)
        bad += db.execute('SELECT count(*) FROM t').fetchone()[0] != n
        db.close()
        print('checked', r, 'wrong', bad, flush=True)
        print('ok', file=sys.stderr, flush=True)
