"""grad.test: einsum-grad against torch.autograd on random equations.

For each equation (diagonals, size-1 broadcasts, ellipses, 1-4 operands,
zero-size dims, implicit and explicit outputs), the function
`f(x...) = einsum(equation, x...)` is written as MLIR, its gradient with
respect to each operand is made by `einsum-opt -einsum-optimize-path
-einsum-grad=wrt=I` and run by `einsum-run --entry=f_grad` with a random
output gradient; torch computes the same vector-Jacobian product with
`torch.einsum(...).backward(grad_output)`.

Usage: grad-torch.py EINSUM_OPT EINSUM_RUN WORKDIR COUNT
"""
import os
import random
import subprocess
import sys

import numpy as np
import torch

einsum_opt, einsum_run, work, count = (sys.argv[1], sys.argv[2], sys.argv[3],
                                       int(sys.argv[4]))
os.makedirs(work, exist_ok=True)
chooser = random.Random(14)
rng = np.random.default_rng(14)
MLIR_TYPES = {np.float32: "f32", np.float64: "f64"}


def random_case():
    """An equation and operand shapes torch accepts."""
    labels = "abcdefg"
    sizes = {l: chooser.choice([1, 2, 3, 4, 5]) for l in labels}
    if chooser.random() < 0.1:
        sizes[chooser.choice(labels)] = 0
    num = chooser.choice([1, 2, 2, 3, 3, 4])
    ellipsis = chooser.random() < 0.25
    ell_shape = [chooser.choice([1, 2, 3]) for _ in range(chooser.choice([1, 2]))]
    terms, shapes = [], []
    for _ in range(num):
        rank = chooser.randint(0 if num > 1 else 1, 3)
        term = [chooser.choice(labels[:5]) for _ in range(rank)]
        # A diagonal now and then.
        if term and chooser.random() < 0.15:
            term.append(term[0])
        shape = []
        for l in term:
            # A size-1 broadcast of a label now and then.
            shape.append(1 if chooser.random() < 0.1 else sizes[l])
        # Repeated labels need equal sizes (no broadcast inside an operand).
        for i, l in enumerate(term):
            first = term.index(l)
            shape[i] = shape[first]
        text = "".join(term)
        if ellipsis and chooser.random() < 0.7:
            cut = chooser.randint(0, len(text))
            ell = ell_shape[chooser.randint(0, len(ell_shape)):]
            ell = [1 if chooser.random() < 0.2 else s for s in ell]
            text = text[:cut] + "..." + text[cut:]
            shape = shape[:cut] + ell + shape[cut:]
        terms.append(text)
        shapes.append(shape)
    used = sorted(set("".join(terms).replace(".", "")))
    if chooser.random() < 0.3:
        return ",".join(terms), shapes
    out = [l for l in used if chooser.random() < 0.5]
    chooser.shuffle(out)
    out = "".join(out)
    if any("..." in t for t in terms) and chooser.random() < 0.7:
        out = "..." + out
    return ",".join(terms) + "->" + out, shapes


def semiring_torch(semiring, equation, tops):
    """The semiring einsum as differentiable torch ops: every operand on the
    full label space (diagonals through torch.einsum), the terms' sum (or
    product for max_times), then logsumexp, amax or amin over the summed
    labels."""
    inputs, output = equation.split("->")
    terms = inputs.split(",")
    labels = sorted(set("".join(terms)))
    expanded = []
    for term, op in zip(terms, tops):
        order = sorted(set(term), key=term.index)
        view = torch.einsum(term + "->" + "".join(order), op)
        view = torch.einsum("".join(order) + "->" + "".join(
            l for l in labels if l in order), view)
        index = tuple(slice(None) if l in order else None for l in labels)
        expanded.append(view[index])
    term = expanded[0]
    for e in expanded[1:]:
        term = term * e if semiring == "max_times" else term + e
    summed = [i for i, l in enumerate(labels) if l not in output]
    if summed:
        if semiring == "log":
            for axis in reversed(summed):
                term = term.logsumexp(axis)
        elif semiring in ("max", "max_times"):
            term = term.amax(dim=summed)
        else:
            term = term.amin(dim=summed)
    kept = [l for l in labels if l in output]
    return torch.einsum("".join(kept) + "->" + output, term)


def tensor_type(shape, dtype):
    return "tensor<%s>" % "x".join([str(s) for s in shape] + [MLIR_TYPES[dtype]])


def check(index, equation, shapes, dtype, semiring="plus_times"):
    ops = [rng.uniform(-1, 1, s).astype(dtype) for s in shapes]
    tops = [torch.from_numpy(o.copy()).requires_grad_() for o in ops]
    try:
        if semiring == "plus_times":
            result = torch.einsum(equation, *tops)
        else:
            result = semiring_torch(semiring, equation, tops)
    except RuntimeError:
        return None  # not an einsum torch accepts: not a case
    grad_output = rng.uniform(-1, 1, tuple(result.shape)).astype(dtype)
    result.backward(torch.from_numpy(grad_output))
    args = ", ".join("%%x%d: %s" % (i, tensor_type(o.shape, dtype))
                     for i, o in enumerate(ops))
    module = ("func.func @f(%s) -> %s {\n"
              "  %%r = einsum.contract \"%s\"(%s)%s : %s\n"
              "  return %%r : %s\n}\n") % (
        args, tensor_type(result.shape, dtype), equation,
        ", ".join("%%x%d" % i for i in range(len(ops))),
        "" if semiring == "plus_times" else
        " {semiring = #einsum.semiring<%s>}" % semiring,
        ", ".join(tensor_type(o.shape, dtype) for o in ops),
        tensor_type(result.shape, dtype))
    source = os.path.join(work, "f.mlir")
    with open(source, "w") as f:
        f.write(module)
    paths = []
    for i, o in enumerate(ops + [grad_output]):
        path = os.path.join(work, "in%d.npy" % i)
        np.save(path, o)
        paths.append(path)
    failures = 0
    tolerance = 1e-9 if dtype == np.float64 else 2e-4
    for wrt in range(len(ops)):
        grad_module = os.path.join(work, "grad.mlir")
        subprocess.run([einsum_opt, source, "-einsum-optimize-path",
                        "-einsum-grad=wrt=%d" % wrt, "-o", grad_module],
                       check=True)
        out = os.path.join(work, "out.npy")
        if os.path.exists(out):
            os.remove(out)
        subprocess.run([einsum_run, grad_module, "--entry=f_grad",
                        "--threads=1", *["--input=@" + p for p in paths],
                        "--output=@" + out], check=True)
        got = np.load(out)
        want = tops[wrt].grad.numpy()
        scale = max(1.0, float(np.abs(want).max()) if want.size else 1.0)
        ok = got.shape == want.shape and (
            got.size == 0 or float(np.abs(got - want).max()) <= tolerance * scale)
        if not ok:
            print("FAIL %d %s %s %s wrt %d: %s" % (
                index, semiring, equation, MLIR_TYPES[dtype], wrt,
                "shape %s, want %s" % (got.shape, want.shape)
                if got.shape != want.shape else
                "max abs error %.3g" % float(np.abs(got - want).max())))
        failures += not ok
    return failures


failures = cases = 0
classes = {"diagonal": 0, "broadcast": 0, "ellipsis": 0, "3-4 operands": 0,
           "zero-size": 0}
while cases < count:
    equation, shapes = random_case()
    dtype = np.float64 if cases % 3 else np.float32
    result = check(cases, equation, shapes, dtype)
    if result is None:
        continue
    cases += 1
    failures += result
    terms = equation.split("->")[0].split(",")
    classes["diagonal"] += any(len(set(t.replace(".", ""))) <
                               len(t.replace(".", "")) for t in terms)
    classes["broadcast"] += any(
        s == 1 for shape in shapes for s in shape)
    classes["ellipsis"] += "..." in equation
    classes["3-4 operands"] += len(terms) >= 3
    classes["zero-size"] += any(s == 0 for shape in shapes for s in shape)
print("%d equations, %d failed" % (cases, failures))

# Semiring gradients (marginals: softmax weights for log, argmax/argmin
# indicators for max and min, times the other factors for max_times) against
# torch's autograd of the broadcast formulation, f64, explicit outputs.
semiring_cases = 0
for semiring in ("log", "max", "min", "max_times"):
    done = 0
    while done < 8:
        equation, shapes = random_case()
        if "..." in equation or "->" not in equation or any(
                s == 0 for shape in shapes for s in shape):
            continue
        result = check(done, equation, shapes, np.float64, semiring)
        if result is None:
            continue
        done += 1
        semiring_cases += 1
        failures += result
print("%d semiring equations, %d failed in all" % (semiring_cases, failures))
for name, n in classes.items():
    print("with %s: %d" % (name, n))
sys.exit(1 if failures else 0)
