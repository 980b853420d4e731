#!/usr/bin/python3
# map-rewrite.py FILE [CMD...]: maps FILE shared and read-only, runs CMD
# (if any; else waits for a line on stdin while someone outside changes
# the file), then prints what its mapping shows: a digest of the bytes
# the file now holds, then each page's first byte up to the mapping's
# end. A page past the file's new end gets SIGBUS, as natively
# (coherence.sh compares the two).
import hashlib, mmap, os, subprocess, sys

path, cmd = sys.argv[1], sys.argv[2:]
fd = os.open(path, os.O_RDONLY)
m = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ)
print("mapped", len(m), flush=True)
if cmd:
    subprocess.run(cmd, check=True)
else:
    sys.stdin.readline()
size = min(os.stat(path).st_size, len(m))
print("then", size, hashlib.sha256(m[:size]).hexdigest()[:16], flush=True)
for off in range(0, len(m), 4096):
    print("page", off // 4096, m[off], flush=True)
