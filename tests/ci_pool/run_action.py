"""Runs a composite GitHub Action's `run:` steps here, as the runner would.

    python3 tests/ci_pool/run_action.py ACTION.yml [INPUT=VALUE ...]

Each `run:` step runs with GitHub's `bash --noprofile --norc -eo pipefail`, in the current
directory (the workspace), with GITHUB_ACTION_PATH the action's directory and the step's
`env:`, whose `${{ inputs.NAME }}` expressions are replaced by the given inputs or the
action's defaults. GITHUB_ENV, GITHUB_PATH and GITHUB_OUTPUT are taken from the environment
(the caller makes them files and reads them afterwards, as the runner does between steps).
A `uses:` step (actions/cache) cannot run outside GitHub: it is named and skipped. Any other
expression is refused, so that the test notices an action that needs more than this.
Exits with the first failing step's status. Needs PyYAML.
"""

import os
import re
import subprocess
import sys

import yaml

INPUT = re.compile(r"\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}")


def main(argv):
    path, given = argv[0], dict(a.split("=", 1) for a in argv[1:])
    with open(path) as f:
        action = yaml.safe_load(f)
    inputs = {name: str(spec.get("default", "")) for name, spec in action.get("inputs", {}).items()}
    unknown = set(given) - set(inputs)
    if unknown:
        sys.exit(f"{path}: no such input: {', '.join(sorted(unknown))}")
    inputs.update(given)
    assert action["runs"]["using"] == "composite", f"{path}: not a composite action"
    for number, step in enumerate(action["runs"]["steps"], 1):
        if "uses" in step:
            print(f"{path}: step {number}: uses {step['uses']}: skipped (GitHub only)", file=sys.stderr)
            continue
        assert step.get("shell") == "bash", f"{path}: step {number}: shell is not bash"
        env = dict(os.environ, GITHUB_ACTION_PATH=os.path.dirname(os.path.abspath(path)))
        for name, value in step.get("env", {}).items():
            value = INPUT.sub(lambda m: inputs[m.group(1)], str(value))
            if "${{" in value:
                sys.exit(f"{path}: step {number}: env {name}: unsupported expression {value}")
            env[name] = value
        if "${{" in step["run"]:
            sys.exit(f"{path}: step {number}: run: expressions belong in env:")
        status = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], env=env
        ).returncode
        if status != 0:
            print(f"{path}: step {number} failed (exit status {status})", file=sys.stderr)
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
