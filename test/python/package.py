# The einsum_mlir package's pytest suite (test/python/pytest).
# RUN: env PYTHONPATH=%einsum_python_packages %PYTHON -m pytest -q -p no:cacheprovider %S/pytest | FileCheck %s
# CHECK: {{[0-9]+}} passed
# CHECK-NOT: failed
