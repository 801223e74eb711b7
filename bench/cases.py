"""The benchmark cases: ../shared/bench/cases.json and bench/cases.json."""

import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_cases():
    """Every case of the shared file and of the project's own, in order."""
    cases = []
    for path in (os.path.join(ROOT, "..", "shared", "bench", "cases.json"),
                 os.path.join(ROOT, "bench", "cases.json")):
        if os.path.exists(path):
            with open(path) as f:
                cases += json.load(f)["cases"]
    return cases
