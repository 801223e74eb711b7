#!/usr/bin/python3
"""Runs the shell and Python examples of README.md and docs/*.md verbatim.

    run-doc-examples.py SOURCE_ROOT BUILD_DIR [--python PYTHON] [--list]

Every fenced block tagged sh, bash or python runs, in order, from a scratch
directory that mirrors the repository root (symbolic links to its entries)
with `build` pointing at BUILD_DIR, so `build/bin/einsum-run` in an example
is the build under test. A block is left out only when the line before its
fence is `<!-- docs-test: skip (REASON) -->`. Shell blocks run with
`bash -e -o pipefail`, Python blocks with PYTHON. A block that fails prints
its file, line, code and output, and the script exits 1.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

RUN = {"sh": "sh", "bash": "sh", "python": "python"}
SKIP = re.compile(r"^<!-- docs-test: skip \((.+)\) -->$")


def blocks(path):
    """(line, language, code, skip reason or None) of each fenced block."""
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```") and len(line) > 3:
            language = line[3:].strip()
            start = i + 1
            end = start
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            skip = SKIP.match(lines[i - 1].strip()) if i > 0 else None
            yield (start, language, "\n".join(lines[start:end]) + "\n",
                   skip.group(1) if skip else None)
            i = end + 1
        else:
            i += 1


def mirror(root, build, scratch):
    """A directory of links to the repository's entries, `build` -> build."""
    for entry in os.listdir(root):
        if entry in ("build", ".git"):
            continue
        os.symlink(os.path.join(os.path.abspath(root), entry),
                   os.path.join(scratch, entry))
    os.symlink(os.path.abspath(build), os.path.join(scratch, "build"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root")
    parser.add_argument("build")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()

    files = [os.path.join(args.root, "README.md")] + sorted(
        glob.glob(os.path.join(args.root, "docs", "**", "*.md"),
                  recursive=True))
    failures = 0
    ran = skipped = 0
    scratch = tempfile.mkdtemp(prefix="einsum-doc-examples-")
    try:
        mirror(args.root, args.build, scratch)
        for path in files:
            name = os.path.relpath(path, args.root)
            for line, language, code, skip in blocks(path):
                kind = RUN.get(language)
                if kind is None:
                    continue
                where = "%s:%d (%s)" % (name, line, language)
                if skip is not None:
                    print("SKIP %s: %s" % (where, skip))
                    skipped += 1
                    continue
                if args.list:
                    print("RUN  %s" % where)
                    continue
                command = (["bash", "-e", "-o", "pipefail", "-c", code]
                           if kind == "sh" else [args.python, "-c", code])
                result = subprocess.run(command, cwd=scratch,
                                        stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True,
                                        timeout=600)
                ran += 1
                if result.returncode == 0:
                    print("PASS %s" % where)
                    continue
                failures += 1
                print("FAIL %s: exit status %d\n--- code ---\n%s--- output "
                      "---\n%s" % (where, result.returncode, code,
                                   result.stdout[-4000:]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("%d blocks ran, %d skipped, %d failed" % (ran, skipped, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
