"""kernel-cache.test: damaged entries, eviction and concurrent writers.

Usage: kernel-cache.py EINSUM_RUN WORKDIR
"""
import glob
import os
import shutil
import subprocess
import sys

einsum_run, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


def run(cache, equation, inputs, size=None, extra=()):
    env = dict(os.environ, EINSUM_MLIR_CACHE="1", EINSUM_MLIR_CACHE_DIR=cache)
    if size is not None:
        env["EINSUM_MLIR_CACHE_SIZE"] = str(size)
    args = [einsum_run, "--threads=1", "--equation=" + equation, "--check",
            "--benchmark=1", *["--input=" + i for i in inputs], *extra]
    result = subprocess.run(args, env=env, capture_output=True, text=True)
    if result.returncode != 0 or "check: OK" not in result.stdout:
        sys.exit("FAILED: %s\n%s%s" % (" ".join(args), result.stdout,
                                       result.stderr))
    return "(from the disk cache)" in result.stdout


def entries(cache):
    return sorted(glob.glob(os.path.join(cache, "*.kernel")))


MM = ("ij,jk->ik", ["6x7xf32", "7x5xf32"])

# Damaged entries: each is ignored, the kernel compiled again (and right),
# and the entry written anew.
def damage(name, change):
    cache = os.path.join(work, name.replace(" ", "-"))
    assert not run(cache, *MM)
    [entry] = entries(cache)
    with open(entry, "rb") as f:
        data = bytearray(f.read())
    with open(entry, "wb") as f:
        f.write(change(data))
    assert not run(cache, *MM), name + ": a damaged entry was used"
    assert run(cache, *MM), name + ": not cached again"
    print(name + ": recompiled, check OK, cached again")


def flip(data):
    data[-100] ^= 0xFF  # In the object: the checksum no longer matches.
    return data


def other_key(data):
    data[48] ^= 0x01  # The first byte of the stored key.
    return data


damage("corrupt object", flip)
damage("truncated", lambda data: data[: len(data) // 2])
damage("other format", lambda data: data[:8] + b"\x63\x00\x00\x00" + data[12:])
damage("empty file", lambda data: b"")
damage("other key under the name", other_key)

# Eviction: with room for two entries, the third evicts the least recently
# used one (the first, once the second has been used after it).
cache = os.path.join(work, "evict")
kernels = [("ij->j", ["5x6xf32"]), ("ij->i", ["5x6xf32"]),
           ("ij,j->i", ["5x6xf32", "6xf32"])]
run(cache, *kernels[0])
run(cache, *kernels[1])
sizes = [os.path.getsize(e) for e in entries(cache)]
capacity = sum(sizes) + max(sizes) // 2
run(cache, *kernels[1], size=capacity)  # Used last: kept.
run(cache, *kernels[2], size=capacity)
assert len(entries(cache)) == 2, entries(cache)
assert run(cache, *kernels[1], size=capacity), "the recently used one went"
assert not run(cache, *kernels[0], size=capacity + 10**6), "the LRU stayed"
print("eviction: the least recently used entry went, %d entries left" % 2)

# Concurrent writers: 16 processes, 4 kernels, one cache.
cache = os.path.join(work, "concurrent")
jobs = [("ij,jk->ik", ["%dx7xf32" % n, "7x5xf32"]) for n in (2, 3, 4, 5)] * 4
env = dict(os.environ, EINSUM_MLIR_CACHE="1", EINSUM_MLIR_CACHE_DIR=cache)
processes = [subprocess.Popen(
    [einsum_run, "--threads=1", "--equation=" + eq, "--check",
     *["--input=" + i for i in inputs]],
    env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for eq, inputs in jobs]
for p in processes:
    out, err = p.communicate()
    if p.returncode != 0 or "check: OK" not in out:
        sys.exit("FAILED concurrent run:\n" + out + err)
assert len(entries(cache)) == 4, entries(cache)
assert not glob.glob(os.path.join(cache, "*.tmp")), "temporary files left"
for eq, inputs in jobs[:4]:
    assert run(cache, eq, inputs), "an entry did not load"
print("concurrent: %d processes OK, 4 entries, all load" % len(jobs))
