#!/usr/bin/env python3
"""rusage.py OUT CMD...: runs CMD with its stdout in OUT and prints its wall time, CPU time and peak RSS (the
machine may have no /usr/bin/time)."""
import resource
import subprocess
import sys
import time

t0 = time.monotonic()
with open(sys.argv[1], "w") as out:
    rc = subprocess.run(sys.argv[2:], stdout=out).returncode
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{time.monotonic() - t0:.2f} s wall, {u.ru_utime + u.ru_stime:.2f} s CPU, peak RSS {u.ru_maxrss} KB "
      f"({u.ru_maxrss / 1024:.0f} MiB), exit {rc}")
