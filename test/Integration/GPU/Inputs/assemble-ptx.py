"""Assembles the output of `einsum-run --emit=ptx` with ptxas, as it is.

Usage: assemble-ptx.py PTXAS ARCH < kernels.ptx

einsum-run prints one PTX module (the kernels of every `gpu.binary`, under
one header), which must assemble whole. Prints one line per kernel with its
register count, and exits with status 1 when ptxas rejects the module (its
diagnostics are printed).
"""

import os
import re
import subprocess
import sys
import tempfile


def main():
    ptxas, arch = sys.argv[1], sys.argv[2]
    text = sys.stdin.read()
    if ".entry" not in text:
        print("no kernels in the input")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "kernels.ptx")
        with open(path, "w") as f:
            f.write(text)
        result = subprocess.run(
            [ptxas, "-arch=" + arch, "-v", path, "-o", os.devnull],
            capture_output=True, text=True)
    if result.returncode != 0:
        print("ptxas rejected the module:\n%s" % result.stderr)
        return 1
    # -v reports each entry, then its resources.
    name = None
    for line in result.stderr.splitlines():
        entry = re.search(r"Compiling entry function '(\S+)'", line)
        if entry:
            name = entry.group(1)
        registers = re.search(r"Used (\d+) registers", line)
        if registers and name:
            print("assembled @%s (%s registers)" % (name, registers.group(1)))
            name = None
    return 0


if __name__ == "__main__":
    sys.exit(main())
