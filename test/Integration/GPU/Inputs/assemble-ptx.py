"""Assembles every kernel module of `einsum-run --emit=ptx` with ptxas.

Usage: assemble-ptx.py PTXAS ARCH < kernels.ptx

The modules are separated by the `// gpu.binary @NAME` lines that
einsum-run prints. Prints one line per module and exits with status 1 when
ptxas rejects one (its diagnostics are printed).
"""

import os
import re
import subprocess
import sys
import tempfile


def main():
    ptxas, arch = sys.argv[1], sys.argv[2]
    text = sys.stdin.read()
    parts = re.split(r"^// gpu\.binary @(\S+)\n", text, flags=re.M)
    modules = list(zip(parts[1::2], parts[2::2]))
    if not modules:
        print("no kernel modules in the input")
        return 1
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for name, ptx in modules:
            path = os.path.join(tmp, name + ".ptx")
            with open(path, "w") as f:
                f.write(ptx)
            result = subprocess.run(
                [ptxas, "-arch=" + arch, "-v", path, "-o", os.devnull],
                capture_output=True, text=True)
            if result.returncode != 0:
                failed = True
                print("ptxas rejected @%s:\n%s" % (name, result.stderr))
                continue
            registers = re.search(r"Used (\d+) registers", result.stderr)
            print("assembled @%s (%s registers)" %
                  (name, registers.group(1) if registers else "?"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
