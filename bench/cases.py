"""The benchmark cases: bench/cases.json, and any case of a sibling
../shared/bench/cases.json (where the project's shared folder is checked out)
that bench/cases.json does not hold by name."""

import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_cases():
    """Every case of the project's file, then the shared file's new ones."""
    cases = []
    names = set()
    for path in (os.path.join(ROOT, "bench", "cases.json"),
                 os.path.join(ROOT, "..", "shared", "bench", "cases.json")):
        if os.path.exists(path):
            with open(path) as f:
                for case in json.load(f)["cases"]:
                    if case.get("name") not in names:
                        names.add(case.get("name"))
                        cases.append(case)
    return cases
