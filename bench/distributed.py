#!/usr/bin/env python3
"""einsum-run --grid on this machine, and a model of larger grids.

Measured (mpirun on this machine, loopback, one thread per rank): a 4096^2
GEMM and a coupled-cluster-like contraction on 1, 2 and 4 ranks: the
slowest rank's median time, the efficiency T1 / (R * T_R) against the same
kernel run by one process, the bytes each rank all-reduces and the data
volume per rank (operand blocks and result block) against einsum-shard's
lower bound. This machine has 2 cores: 4 ranks share them, so the speedup
is at most 2 there.

Model (--model): einsum-shard's decision and volumes (einsum-opt
-einsum-shard explain=1) for 16, 64 and 256 ranks on square grids, the
problems scaled with the ranks (weak scaling: the same memory per rank), on
a stated network: each rank computes its block at the single-core rate
measured here, and receives its operand blocks (less its own 1/R share,
the data SUMMA broadcasts when the operands start distributed without
replication) and its all-reduce traffic over a link of --link-gbs GB/s with
--latency-us per message. SUMMA's per-rank words for the GEMM, 2 n^2 /
sqrt(R) (van de Geijn and Watts, 1997), are printed next to the model's.

  OPENBLAS_NUM_THREADS=1 bench/distributed.py [--build build] [--runs 5]
  bench/distributed.py --model --link-gbs 25 --latency-us 2
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

CASES = [
    # name, equation, shapes
    ("gemm 4096^2", "ij,jk->ik", [(4096, 4096), (4096, 4096)]),
    ("ccsd-like ijab,abcd->ijcd", "ijab,abcd->ijcd",
     [(32, 32, 48, 48), (48, 48, 48, 48)]),
    # A small result of a long sum: the sum is split, then all-reduced.
    ("long sum ik,kj->ij", "ik,kj->ij", [(256, 131072), (131072, 256)]),
]


def scaled_shapes(equation, ranks):
    """The case's shapes on `ranks` ranks (weak scaling from 4 ranks: about
    the same operand bytes per rank; sizes divisible by the grid's side),
    and the size that names the problem."""
    if equation == "ij,jk->ik":
        n = int(4096 * math.sqrt(ranks / 4))
        return [(n, n), (n, n)], n
    if equation == "ijab,abcd->ijcd":
        i, a = {16: (32, 64), 64: (64, 96), 256: (64, 128)}[ranks]
        return [(i, i, a, a), (a, a, a, a)], a
    k = 131072 * ranks // 4
    return [(256, k), (k, 256)], k
GRIDS = [(1, "1"), (2, "2"), (4, "2x2")]


def shape_spec(shape):
    return "x".join(map(str, shape)) + "xf32"


def mpirun(ranks):
    return ["mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "btl",
            "self,vader", "--mca", "btl_vader_single_copy_mechanism", "none",
            "--mca", "oob_tcp_if_include", "lo", "--bind-to", "none",
            "-np", str(ranks)]


def run(command):
    result = subprocess.run(command, capture_output=True, text=True,
                            env=dict(os.environ, OMP_NUM_THREADS="1"))
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{result.stderr}")
    return result.stdout


def measure(args):
    tool = os.path.join(args.build, "bin", "einsum-run")
    print("measured on this machine (2 cores; one thread per rank):")
    print(f"{'case':28} {'ranks':>5} {'grid':>5} {'ms':>9} {'GFLOP/s':>8} "
          f"{'eff.':>5} {'all-reduce B':>12} {'volume MiB':>10} "
          f"{'bound MiB':>9}")
    for name, equation, shapes in CASES:
        inputs = [f"--input={shape_spec(s)}" for s in shapes]
        single = run([tool, f"--equation={equation}", "--threads=1",
                      f"--benchmark={args.runs}"] + inputs)
        t1 = float(re.search(r"median ([0-9.]+) ms", single).group(1))
        for ranks, grid in GRIDS:
            out = run(mpirun(ranks) + [
                tool, f"--grid={grid}", f"--equation={equation}",
                "--explain", f"--benchmark={args.runs}"] + inputs)
            slowest = float(re.search(r"median ([0-9.]+) ms \(slowest",
                                      out).group(1))
            gflops = float(re.search(r"([0-9.]+) GFLOP/s in all",
                                     out).group(1))
            allreduced = max(float(v) for v in re.findall(
                r"all-reduced ([0-9.]+) bytes per run", out))
            plan = re.search(r"operands ([0-9.]+) (\w+), result ([0-9.]+) "
                             r"(\w+).*lower bound on operands \+ result "
                             r"([0-9.]+) (\w+)", out)
            unit = {"B": 1 / 2**20, "KiB": 1 / 1024, "MiB": 1, "GiB": 1024}
            volume = (float(plan.group(1)) * unit[plan.group(2)] +
                      float(plan.group(3)) * unit[plan.group(4)])
            bound = float(plan.group(5)) * unit[plan.group(6)]
            print(f"{name:28} {ranks:5} {grid:>5} {slowest:9.2f} "
                  f"{gflops:8.1f} {t1 / (ranks * slowest):5.2f} "
                  f"{allreduced:12.0f} {volume:10.1f} {bound:9.1f}")
        print(f"{'':28} (one process, no MPI: {t1:.2f} ms)")


def model(args):
    tool = os.path.join(args.build, "bin", "einsum-opt")
    link = args.link_gbs * 1e9
    latency = args.latency_us * 1e-6
    rate = args.gflops * 1e9
    print(f"model: {args.gflops} GFLOP/s per rank (one core here), "
          f"{args.link_gbs} GB/s links, {args.latency_us} us per message")
    print(f"{'case':28} {'ranks':>5} {'grid':>6} {'n':>7} {'compute s':>9} "
          f"{'recv MiB':>9} {'comm s':>8} {'eff.':>5} {'SUMMA MiB':>9}")
    for ranks in (16, 64, 256):
        side = int(math.isqrt(ranks))
        for name, equation, _ in CASES:
            shapes, n = scaled_shapes(equation, ranks)
            ins = ", ".join(f"tensor<{'x'.join(map(str, s))}xf32>"
                            for s in shapes)
            args_text = ", ".join(
                f"%a{k}: tensor<{'x'.join(map(str, s))}xf32>"
                for k, s in enumerate(shapes))
            terms, out = equation.split("->")
            sizes = {}
            for term, s in zip(terms.split(","), shapes):
                sizes.update(zip(term, s))
            result = "tensor<" + "".join(f"{sizes[c]}x" for c in out) + "f32>"
            with tempfile.NamedTemporaryFile("w", suffix=".mlir",
                                             delete=False) as f:
                f.write(f"func.func @f({args_text}) -> {result} {{\n"
                        f"  %0 = einsum.contract \"{equation}\"(%a0, %a1) : "
                        f"{ins}\n  return %0 : {result}\n}}\n")
            result = subprocess.run(
                [tool, f.name, f"-einsum-shard=grid={side},{side} explain=1",
                 "-o", os.devnull], capture_output=True, text=True)
            os.unlink(f.name)
            text = result.stderr
            m = re.search(r"operands ([0-9.]+) (\w+), result ([0-9.]+) (\w+), "
                          r"all-reduce ([0-9.]+) (\w+) sent and received, "
                          r"([0-9.e+]+) points", text)
            if not m:
                sys.exit(f"no decision for {equation}:\n{text}")
            unit = {"B": 1, "KiB": 1024, "MiB": 2**20, "GiB": 2**30,
                    "TiB": 2**40}
            operands = float(m.group(1)) * unit[m.group(2)]
            allreduce = float(m.group(5)) * unit[m.group(6)]
            points = float(m.group(7))
            total_operands = sum(4 * math.prod(s) for s in shapes)
            received = operands - total_operands / ranks + allreduce
            compute = 2 * points / rate
            # Ring all-reduce over the ranks of the axes that split a sum:
            # 2 (P - 1) messages; the operand blocks: a broadcast per step
            # along each grid axis, 2 sqrt(R) (SUMMA's count).
            reducing = math.prod(
                int(size) for size, dims in re.findall(
                    r"axis \d+ \((\d+) ranks\): ([^;]*?)(?=, axis|;)", text)
                if "summed" in dims)
            messages = 2 * side + (2 * (reducing - 1) if allreduce else 0)
            comm = received / link + messages * latency
            summa = (2 * 4 * n * n / side / 2**20
                     if equation == "ij,jk->ik" else float("nan"))
            print(f"{name:28} {ranks:5} {side}x{side:<4} {n:7} {compute:9.3f} "
                  f"{received / 2**20:9.1f} {comm:8.4f} "
                  f"{compute / (compute + comm):5.2f} {summa:9.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(
        os.path.dirname(__file__), "..", "build"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--model", action="store_true")
    parser.add_argument("--link-gbs", type=float, default=25.0)
    parser.add_argument("--latency-us", type=float, default=2.0)
    parser.add_argument("--gflops", type=float, default=100.0,
                        help="the single-core rate of the local kernels")
    args = parser.parse_args()
    if args.model:
        model(args)
    else:
        measure(args)


if __name__ == "__main__":
    main()
