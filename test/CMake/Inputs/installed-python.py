"""Imports the installed einsum_mlir in a fresh process, with no sys.path
edit: the install writes einsum_mlir.pth into a user site directory, which
Python reads at start-up.

Usage: installed-python.py BUILD_DIR WORK_DIR
"""

import os
import subprocess
import sys
import sysconfig

build, work = sys.argv[1], sys.argv[2]
prefix = os.path.join(work, "python-prefix")
userbase = os.path.join(work, "userbase")
site = sysconfig.get_path("purelib", "posix_user", vars={"userbase": userbase})
env = dict(os.environ, EINSUM_PYTHON_SITE_DIR=site)
subprocess.run(["cmake", "--install", build, "--prefix", prefix], env=env,
               check=True, stdout=subprocess.DEVNULL)
program = (
    "import einsum_mlir, numpy as np\n"
    "print('package:', einsum_mlir.__file__)\n"
    "print('version:', einsum_mlir.__version__)\n"
    "print('result:', einsum_mlir.einsum('ij,jk->ik', np.eye(2), "
    "np.arange(4.0).reshape(2, 2)).tolist())\n")
env = dict(os.environ, PYTHONUSERBASE=userbase)
env.pop("PYTHONPATH", None)
result = subprocess.run([sys.executable, "-c", program], env=env,
                        capture_output=True, text=True, cwd=work)
sys.stdout.write(result.stdout + result.stderr)
sys.exit(result.returncode)
