"""Runs a command, forwards its output, and prints its exit status last.

Usage: exit-status.py COMMAND [ARGS...]  (always exits 0, so that FileCheck
sees the status line).
"""

import subprocess
import sys

result = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
sys.stdout.write(result.stdout)
print("exit status %d" % result.returncode)
