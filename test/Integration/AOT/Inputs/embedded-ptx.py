"""Assembles the PTX modules embedded in an einsum-compile --target=cuda
object with ptxas.

Usage: embedded-ptx.py PTXAS ARCH OBJECT

Each gpu.binary of the host code is a NUL-terminated PTX module in the
object's read-only data. Prints one line per module (its entry functions)
and exits with status 1 when there is none or ptxas rejects one.
"""

import os
import re
import subprocess
import sys
import tempfile


def main():
    ptxas, arch, path = sys.argv[1:4]
    with open(path, "rb") as f:
        data = f.read()
    modules = []
    start = data.find(b".version")
    while start >= 0:
        # From the comment block before .version to the terminating NUL.
        begin = data.rfind(b"\0", 0, start) + 1
        end = data.find(b"\0", start)
        modules.append(data[begin:end].decode())
        start = data.find(b".version", end)
    if not modules:
        print("no PTX module in " + path)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        for i, text in enumerate(modules):
            ptx = os.path.join(tmp, "module%d.ptx" % i)
            with open(ptx, "w") as f:
                f.write(text)
            result = subprocess.run(
                [ptxas, "-arch=" + arch, ptx, "-o", os.devnull],
                capture_output=True, text=True)
            if result.returncode != 0:
                print("ptxas rejected module %d:\n%s" % (i, result.stderr))
                return 1
            entries = re.findall(r"\.entry\s+(\w+)", text)
            print("module %d: assembled (%s)" % (i, ", ".join(entries)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
