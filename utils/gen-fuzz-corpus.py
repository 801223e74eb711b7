#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora (test/Fuzz/Inputs/*-corpus) from the tests.

    utils/gen-fuzz-corpus.py            # rewrite the corpora

- equation: every --equation= of the lit tests with its --input= shapes,
  and every einsum.contract equation of the .mlir tests (the encoding of
  tools/einsum-equation-fuzzer: an even first byte, the text, NUL, one byte
  per size with 0xff between operands), plus sublist seeds;
- npy: .npy files of every element type, rank, order and version, and the
  malformed files of test/Integration/CPU/Inputs/make-bad-npy.py;
- dialect: the cases of the dialect, conversion and transform tests, split
  at "// -----".
"""

import hashlib
import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEST = os.path.join(ROOT, "test")
OUT = os.path.join(TEST, "Fuzz", "Inputs")


def write(corpus, data):
    path = os.path.join(OUT, corpus)
    os.makedirs(path, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(path, name), "wb") as f:
        f.write(data)


def test_files(suffixes):
    for directory, _, files in os.walk(TEST):
        if "Fuzz" in directory:
            continue
        for name in sorted(files):
            if name.endswith(suffixes):
                yield os.path.join(directory, name)


def equation_seeds():
    seen = set()
    spec = re.compile(r"--input=(?:@\S+|([0-9x]*)(?:f32|f64|f16|bf16|i32|i64))")
    for path in test_files((".test", ".mlir", ".py")):
        text = open(path, encoding="utf-8", errors="replace").read()
        for line in text.splitlines():
            for eq in re.findall(r"--equation='([^']*)'", line) + re.findall(
                    r'einsum\.contract "([^"]*)"', line):
                shapes = []
                for match in spec.finditer(line):
                    dims = [d for d in (match.group(1) or "").split("x") if d]
                    shapes.append([min(int(d), 6) for d in dims])
                key = (eq, str(shapes))
                if key in seen:
                    continue
                seen.add(key)
                data = b"\x00" + eq.encode() + b"\x00"
                data += b"\xff".join(bytes(s) for s in shapes)
                write("equation-corpus", data)
    # Sublists: 2-byte entries, 0x7fff between sublists, 0x7ffe the
    # ellipsis; values v stand for v - 300 (so 300 + label).
    def entry(v):
        return struct.pack("<H", 0x7ffe if v is Ellipsis else v + 300)
    sep = struct.pack("<H", 0x7fff)
    for lists, explicit in [([[0, 1], [1, 2], [0, 2]], True),
                            ([[Ellipsis, 0, 1], [Ellipsis, 1, 2]], False),
                            ([[0, 0], [0]], True), ([[26, 51], []], False)]:
        body = sep.join(b"".join(entry(v) for v in l) for l in lists)
        write("equation-corpus",
              b"\x01" + (b"\x01" if explicit else b"\x00") + body)


def npy_seeds():
    try:
        import numpy as np
    except ImportError:
        sys.exit("gen-fuzz-corpus.py: the npy corpus needs numpy")
    import io
    for dtype in ["<f4", "<f8", "<f2", "<i4", "<i8", "<V2"]:
        for shape in [(), (0,), (3,), (2, 3), (2, 0, 4), (1, 2, 1, 3)]:
            for order in "CF":
                a = np.zeros(shape, dtype=dtype)
                if dtype != "<V2":
                    a = np.arange(a.size, dtype=dtype).reshape(shape)
                buffer = io.BytesIO()
                np.lib.format.write_array(
                    buffer, np.asarray(a, order=order), version=(1, 0))
                write("npy-corpus", buffer.getvalue())
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.ones((2, 2), "<f4"), version=(2, 0))
    write("npy-corpus", buffer.getvalue())
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.check_call([sys.executable, os.path.join(
            TEST, "Integration", "CPU", "Inputs", "make-bad-npy.py"), tmp])
        for name in sorted(os.listdir(tmp)):
            data = open(os.path.join(tmp, name), "rb").read()
            if len(data) < 4096:
                write("npy-corpus", data)


def dialect_seeds():
    for sub in ["Dialect", "Conversion", "Transforms", "Pipelines"]:
        for path in test_files((".mlir",)):
            if os.sep + sub + os.sep not in path:
                continue
            text = open(path).read()
            for case in text.split("// -----"):
                body = "\n".join(l for l in case.splitlines()
                                 if not l.lstrip().startswith("//"))
                if "einsum.contract" in body and len(body) < 4000:
                    write("dialect-corpus", body.strip().encode() + b"\n")


def main():
    for corpus in ["equation-corpus", "npy-corpus", "dialect-corpus"]:
        path = os.path.join(OUT, corpus)
        if os.path.isdir(path):
            for name in os.listdir(path):
                os.remove(os.path.join(path, name))
    equation_seeds()
    npy_seeds()
    dialect_seeds()
    for corpus in ["equation-corpus", "npy-corpus", "dialect-corpus"]:
        print(corpus, len(os.listdir(os.path.join(OUT, corpus))))


if __name__ == "__main__":
    main()
