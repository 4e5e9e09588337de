#!/usr/bin/python3
"""Whole-process cost of a command for the benchmarks: runs it RUNS times
(stdout discarded) after one unmeasured warm-up run (page cache; not with
--no-warm-up) and prints "wall_ms cpu_ms", the medians of the wall time and
of the children's user + sys CPU time (all threads).
  bench-process-time.py RUNS [--no-warm-up] COMMAND [ARG...]"""
import resource
import subprocess
import sys
import time


def main():
    runs = max(int(sys.argv[1]), 1)
    cmd = sys.argv[2:]
    if cmd[0] == "--no-warm-up":
        cmd = cmd[1:]
    else:
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    walls, cpus = [], []
    for _ in range(runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        walls.append((time.perf_counter() - t0) * 1e3)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) * 1e3)
    walls.sort()
    cpus.sort()
    print("%.1f %.1f" % (walls[len(walls) // 2], cpus[len(cpus) // 2]))


if __name__ == "__main__":
    main()
