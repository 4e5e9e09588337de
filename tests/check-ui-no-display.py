#!/usr/bin/python3
"""Every UI test program, run without a display, skips cleanly.

Usage: check-ui-no-display.py PROGRAM...

Runs each program with DISPLAY and WAYLAND_DISPLAY removed from its
environment (the suite itself may run under xvfb-run) and --tap.  Each must
exit 0 (77 would do for a program that skips as a whole) and report every
test of its TAP plan as passed or skipped, none failed: a program that
aborts in gtk_init() or crashes making a widget fails here with its output.
Tests that need no display still run and must pass.
"""
import os
import re
import subprocess
import sys


def check(program):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    # An upper bound on a hang only: without a display each program is done in
    # about a second.
    run = subprocess.run([program, "--tap"], env=env, capture_output=True, text=True, timeout=600)
    out = run.stdout
    name = os.path.basename(program)
    if run.returncode == 77:
        return []
    problems = []
    if run.returncode != 0:
        why = f"killed by signal {-run.returncode}" if run.returncode < 0 else f"exit status {run.returncode}"
        problems.append(f"{name}: {why}")
    plan = re.search(r"^1\.\.(\d+)", out, re.M)
    results = re.findall(r"^(ok|not ok) \d+", out, re.M)
    if plan is None or int(plan.group(1)) != len(results):
        problems.append(f"{name}: plan {plan.group(0) if plan else 'missing'}, {len(results)} results")
    failed = [line for line in out.splitlines() if line.startswith("not ok")]
    problems += [f"{name}: {line}" for line in failed]
    if problems:
        tail = "\n".join((out + run.stderr).splitlines()[-15:])
        problems.append(f"--- {name}'s output ends:\n{tail}")
    return problems


def main():
    problems = []
    for program in sys.argv[1:]:
        problems += check(program)
    print("1..1")
    if problems:
        for line in "\n".join(problems).splitlines():
            print("# " + line)
        print("not ok 1 UI test programs without a display")
        return 1
    print(f"ok 1 {len(sys.argv) - 1} UI test programs skip cleanly without a display")
    return 0


if __name__ == "__main__":
    sys.exit(main())
