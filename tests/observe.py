# observe.py - what a program can see of itself that the shim must not
# change: its threads, its children, its environment (but LD_PRELOAD), its
# signal dispositions and mask, its limits, its descriptors below the
# shim's (900 and up). Printed one per line, to compare with a native run.
import os
import resource
import signal
import sys


def status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return line.split()[1]
    return "?"


print("threads", sorted(os.listdir("/proc/self/task")) == [str(os.getpid())])
env = sorted(k for k in os.environ if k != "LD_PRELOAD")
print("environ", " ".join(env))
with open("/proc/self/environ", "rb") as f:
    raw = sorted(v.split(b"=", 1)[0].decode() for v in f.read().split(b"\0")
                 if v and not v.startswith(b"LD_PRELOAD="))
print("initial environ", " ".join(raw))
for field in ("SigBlk", "SigIgn", "SigCgt"):
    print(field, status(field))
for name in sorted(n for n in dir(resource) if n.startswith("RLIMIT_")):
    print(name, resource.getrlimit(getattr(resource, name)))
print("fds", sorted(int(n) for n in os.listdir("/proc/self/fd") if int(n) < 900))
try:
    os.waitpid(-1, os.WNOHANG | getattr(os, "__WALL", 0x40000000))
    print("children yes")
except ChildProcessError:
    print("children none")
print("pgrp is parent's", os.getpgrp() == os.getpgid(os.getppid()))
print("session is parent's", os.getsid(0) == os.getsid(os.getppid()))
pid = os.fork()
if pid == 0:
    ok = sorted(os.listdir("/proc/self/task")) == [str(os.getpid())]
    os._exit(0 if ok else 1)
print("fork child alone", os.waitpid(pid, 0)[1] == 0)
sys.stdout.flush()
