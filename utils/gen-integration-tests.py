#!/usr/bin/python3
"""Regenerates test/Integration/CPU/equations.test from numpy.einsum.

Every case runs einsum-run on iota inputs (0, 1, 2, ... in row-major order)
with --check (the reference evaluator) and FileCheck compares every printed
row with numpy.einsum's result, formatted as einsum-run prints it. Inputs are
small integers, so every result is exact in every element type.

    /usr/bin/python3 utils/gen-integration-tests.py > test/Integration/CPU/equations.test
"""

import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test",
                                "python"))
from einsum_oracle import numpy_equation, round_bf16  # noqa: E402

# (name, equation, shapes, dtype)
CASES = [
    # The seed page's examples (the sublist one as its equation).
    ("seed_trace", "ii", [[4, 4]], "f32"),
    ("seed_diagonal", "ii->i", [[4, 4]], "f32"),
    ("seed_outer", "i,j->ij", [[5], [4]], "f32"),
    ("seed_bmm", "bij,bjk->bik", [[3, 2, 5], [3, 5, 4]], "f32"),
    ("seed_sublist", "...AB,...BC->...AC", [[3, 2, 5], [3, 5, 4]], "f32"),
    ("seed_batch_permute", "...ij->...ji", [[2, 3, 4, 5]], "f32"),
    ("seed_bilinear", "bn,anm,bm->ba", [[2, 5], [3, 5, 4], [2, 4]], "f32"),
    # E1 labels: upper and lower case are distinct.
    ("e1_upper_lower", "aA,Ab->ab", [[2, 3], [3, 2]], "f32"),
    ("e1_many_labels", "abcdefgh->hgfedcba", [[1, 2, 1, 2, 1, 2, 1, 2]], "i32"),
    # E2 whitespace.
    ("e2_whitespace", " i j , j k -> i k ", [[2, 3], [3, 2]], "f32"),
    ("e2_whitespace_ellipsis", "... i j ->... j i", [[2, 2, 3]], "i64"),
    # E3 operands.
    ("e3_six_operands", "a,b,c,d,e,f->abcdef",
     [[1], [2], [1], [2], [1], [2]], "f64"),
    ("e3_four_chain", "ij,jk,kl,lm->im", [[2, 3], [3, 2], [2, 3], [3, 2]], "f64"),
    # E4 rank / ellipsis coverage.
    ("e4_empty_ellipsis", "...ij->...ji", [[2, 3]], "f32"),
    ("e4_middle_ellipsis", "i...j->ji...", [[2, 3, 4, 5]], "f32"),
    ("e4_leading_labels", "ab...->...ba", [[2, 3, 2]], "i32"),
    # E5 diagonals.
    ("e5_trace", "ii->", [[3, 3]], "i64"),
    ("e5_triple", "iii->i", [[3, 3, 3]], "f32"),
    ("e5_two_repeats", "ijij->ij", [[2, 3, 2, 3]], "f32"),
    ("e5_diag_and_sum", "iij->ji", [[3, 3, 2]], "f32"),
    ("e5_two_operands", "iijj,ijij->ji", [[2, 2, 3, 3], [2, 3, 2, 3]], "f64"),
    ("e5_diag_times_vector", "ii,i->i", [[3, 3], [3]], "i32"),
    # E6 broadcast of size-1 dims.
    ("e6_broadcast_both", "ij,ij->ij", [[1, 3], [2, 1]], "f32"),
    ("e6_broadcast_summed", "ij,jk->ik", [[2, 1], [5, 4]], "f32"),
    ("e6_broadcast_all_ones", "i,i->i", [[1], [1]], "f32"),
    # E7 ellipsis broadcast.
    ("e7_bmm_broadcast", "...ij,...jk->...ik", [[3, 1, 2, 5], [2, 5, 3]], "f32"),
    ("e7_different_ranks", "...i,...i", [[2, 1, 4], [3, 4]], "f32"),
    # E8 implicit output.
    ("e8_matmul", "ij,jk", [[2, 3], [3, 2]], "f32"),
    ("e8_upper_first", "aB", [[2, 3]], "f32"),
    ("e8_transpose", "ba", [[2, 3]], "f32"),
    ("e8_full_sum", "ij,ij", [[2, 3], [2, 3]], "f32"),
    ("e8_ellipsis_first", "i...,j", [[2, 3], [2]], "f32"),
    ("e8_bmm", "...ij,...jk", [[2, 2, 3], [2, 3, 2]], "f32"),
    # E9 explicit output, summed ellipsis.
    ("e9_summed_ellipsis", "...ij->ij", [[5, 2, 3]], "f32"),
    ("e9_summed_everything", "...ij->", [[2, 2, 3]], "f32"),
    ("e9_output_ellipsis_only", "ij->...ji", [[2, 3]], "f32"),
    ("e9_summed_ellipsis_two", "...i,...i->i", [[2, 3], [2, 3]], "f32"),
    # E10 output sizes.
    ("e10_size_one_output", "ij,j->ij", [[1, 3], [3]], "f32"),
    # E11 values, zero-size dims.
    ("e11_zero_sum", "ij,jk->ik", [[2, 0], [0, 3]], "f32"),
    ("e11_zero_output", "i,j->ij", [[0], [3]], "f32"),
    ("e11_empty_sum_scalar", "i->", [[0]], "f64"),
    # E12 scalars.
    ("e12_empty_equation", "", [[]], "f32"),
    ("e12_two_scalars", ",->", [[], []], "i32"),
    ("e12_scalar_times_vector", ",i->i", [[], [3]], "f32"),
    # E13 element types.
    ("e13_f64_matmul", "ij,jk->ik", [[2, 3], [3, 4]], "f64"),
    ("e13_f16_matmul", "ij,jk->ik", [[2, 3], [3, 4]], "f16"),
    ("e13_bf16_matmul", "ij,jk->ik", [[2, 3], [3, 2]], "bf16"),
    ("e13_i32_matmul", "ij,jk->ik", [[2, 3], [3, 4]], "i32"),
    ("e13_i64_matmul", "ij,jk->ik", [[2, 3], [3, 4]], "i64"),
    ("e13_f16_trace", "ii", [[4, 4]], "f16"),
    ("e13_bf16_sum", "ij->j", [[3, 4]], "bf16"),
    ("e13_i32_outer", "i,j->ij", [[3], [2]], "i32"),
    # Common einsums.
    ("dot", "i,i->", [[5], [5]], "f32"),
    ("matvec", "ij,j->i", [[3, 4], [4]], "f32"),
    ("transpose", "ij->ji", [[2, 3]], "f32"),
    ("row_sums", "ij->i", [[3, 4]], "f32"),
    ("sum_jk", "ijk->i", [[2, 3, 4]], "f32"),
    ("sum_i", "ijk->jk", [[2, 3, 4]], "f32"),
    ("reverse_axes", "ijk->kji", [[2, 3, 2]], "f32"),
    ("hadamard", "ij,ij->ij", [[2, 3], [2, 3]], "f32"),
    ("transposed_product", "ij,jk->ki", [[2, 3], [3, 2]], "f32"),
    ("tn_product", "ji,jk->ik", [[3, 2], [3, 2]], "f32"),
    ("attention_qk", "bhqd,bhkd->bhqk", [[1, 2, 2, 3], [1, 2, 2, 3]], "f32"),
    ("tensor_contraction", "abcd,dbef->aecf", [[2, 2, 2, 2], [2, 2, 2, 2]], "f32"),
    ("contract_two_labels", "jk,ijkl->il", [[2, 3], [2, 2, 3, 2]], "f32"),
    ("heads", "bsd,hdk->bhsk", [[1, 2, 3], [2, 3, 2]], "f32"),
    ("mlp_chain", "bi,ij,jk,b->bk", [[2, 3], [3, 2], [2, 2], [2]], "f64"),
    ("batch_diag", "bii->bi", [[2, 3, 3]], "f32"),
    ("outer3", "i,j,k->ijk", [[2], [2], [2]], "i64"),
]

NP_TYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
            "bf16": np.float32, "i32": np.int32, "i64": np.int64}


def reference(equation, shapes, dtype):
    ops = [np.arange(int(np.prod(s)), dtype=np.float64).reshape(s)
           for s in shapes]
    if dtype in ("i32", "i64"):
        ops = [o.astype(np.int64) for o in ops]
    if dtype == "bf16":
        ops = [round_bf16(o) for o in ops]
    if dtype == "f16":
        ops = [o.astype(np.float16).astype(np.float64) for o in ops]
    result = np.einsum(numpy_equation(equation, shapes), *ops)
    result = np.asarray(result)
    if dtype == "i32":
        return result.astype(np.int64).astype(np.int32)
    if dtype == "i64":
        return result.astype(np.int64)
    if dtype == "f16":
        return result.astype(np.float16).astype(np.float64)
    if dtype == "bf16":
        return round_bf16(result)
    if dtype == "f32":
        return result.astype(np.float32).astype(np.float64)
    return result


def fmt_element(v, integer):
    if integer:
        return str(int(v))
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "-inf" if v < 0 else "inf"
    s = "%.8g" % v
    if "." not in s and "e" not in s:
        s += "."
    return s


def fmt_array(a, integer):
    if a.ndim == 0:
        return fmt_element(a[()], integer)
    rank = a.ndim

    def rec(x, dim):
        if dim == rank - 1:
            return "[" + ", ".join(fmt_element(v, integer) for v in x) + "]"
        sep = ",\n" + "\n" * (rank - dim - 2) + " " * (dim + 1)
        return "[" + sep.join(rec(x[k], dim + 1) for k in range(x.shape[0])) + "]"

    return rec(a, 0)


def escape(line):
    # '[[' starts a FileCheck variable; match it as a regex instead.
    return re.sub(r"\[\[+", lambda m: "{{" + "\\[" * len(m.group()) + "}}",
                  line)


def main():
    out = sys.stdout
    out.write("// Generated by utils/gen-integration-tests.py from numpy.einsum;"
              " do not edit.\n")
    out.write("// Each case runs einsum-run on iota inputs with --check (the "
              "reference\n// evaluator) and checks every printed value.\n\n")
    for name, equation, shapes, dtype in CASES:
        prefix = name.upper()
        inputs = " ".join(
            "--input=%s=iota" % "x".join([str(d) for d in s] + [dtype])
            for s in shapes)
        out.write("// RUN: einsum-run --equation='%s' %s --check \\\n"
                  "// RUN:   | FileCheck %%s --match-full-lines --check-prefix=%s\n"
                  % (equation, inputs, prefix))
        result = reference(equation, shapes, dtype)
        text = fmt_array(result, dtype in ("i32", "i64"))
        out.write("// %s: check: OK{{.*}}\n" % prefix)
        for line in text.split("\n"):
            if line == "":
                out.write("// %s-EMPTY:\n" % prefix)
            else:
                out.write("// %s-NEXT: %s\n" % (prefix, escape(line)))
        out.write("\n")


if __name__ == "__main__":
    main()
