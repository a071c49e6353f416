"""A condorlite personal pool for a pytest session.

Copy this file next to your tests (or merge it into your conftest.py). Tests that take the
``condor_pool`` fixture run with a pool up: the first of them starts ``condor_master -f`` on a
fresh LOCAL_DIR under pytest's temporary directory, waits until ``condor_status`` answers, and
points ``_CONDOR_LOCAL_DIR`` and ``CONDOR_CONFIG`` at it in ``os.environ``, so the condor_*
tools your code runs (and their children) use that pool. The pool stops after the last test;
if any test failed, the session's output ends with the queue, ``condor_q -analyze`` of the
idle and held jobs and the end of the master's log::

    import subprocess

    def test_my_tool_submits(condor_pool, tmp_path):
        subprocess.run(["my-tool", "run", "--wait"], check=True, cwd=tmp_path)

The tools are found on PATH, or in ``CONDORLITE_BIN``. The pool's configuration: override the
``condor_pool_knobs`` fixture (session scope) in your conftest.py::

    @pytest.fixture(scope="session")
    def condor_pool_knobs():
        return {"NUM_CPUS": "4", "MEMORY": "8192", "MACHINE_RESOURCE_GPUs": "2"}

Make it ``autouse=True`` in your own conftest.py (a fixture that requests ``condor_pool``) when
every test needs the pool. Needs pytest 7 or later. See docs/testing-with-condorlite.md in
condorlite's repository.
"""

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

START_TIMEOUT = 60
STOP_TIMEOUT = 60
# The diagnosis made when the pool stops after failed tests, printed in the session's summary
# (output captured in the last test's teardown is shown only when that test failed).
DIAGNOSIS = pytest.StashKey[str]()


@dataclass
class CondorPool:
    """The running pool: its LOCAL_DIR, configuration file and the tools' directory."""

    local_dir: Path
    config: Path
    bin: Path

    def run(self, *args, **kwargs):
        """Runs a condor_* tool of the pool, capturing its output as text."""
        kwargs.setdefault("capture_output", True)
        kwargs.setdefault("text", True)
        return subprocess.run([str(self.bin / args[0]), *args[1:]], **kwargs)


def _tools_dir():
    directory = os.environ.get("CONDORLITE_BIN")
    if directory is None:
        master = shutil.which("condor_master")
        if master is None:
            pytest.fail("condor_master is not on PATH (install condorlite, or set CONDORLITE_BIN)")
        directory = os.path.dirname(master)
    return Path(directory).resolve()


@pytest.fixture(scope="session")
def condor_pool_knobs():
    """Configuration knobs of the session's pool, NAME -> value; override to change them."""
    return {}


@pytest.fixture(scope="session")
def condor_pool(request, tmp_path_factory, condor_pool_knobs):
    top = tmp_path_factory.mktemp("condorlite")
    pool = CondorPool(local_dir=top / "pool", config=top / "condor_config", bin=_tools_dir())
    pool.local_dir.mkdir()
    pool.config.write_text("".join(f"{name} = {value}\n" for name, value in condor_pool_knobs.items()))
    names = ("_CONDOR_LOCAL_DIR", "CONDOR_CONFIG", "PATH")
    saved = {name: os.environ.get(name) for name in names}
    os.environ["_CONDOR_LOCAL_DIR"] = str(pool.local_dir)
    os.environ["CONDOR_CONFIG"] = str(pool.config)
    os.environ["PATH"] = f"{pool.bin}{os.pathsep}{os.environ.get('PATH', '')}"
    output = open(top / "condor_master.out", "w+")
    master = subprocess.Popen([str(pool.bin / "condor_master"), "-f"], stdout=output, stderr=output)
    try:
        _wait_until_up(pool, master, output)
        yield pool
    finally:
        if request.session.testsfailed:
            request.config.stash[DIAGNOSIS] = _diagnosis(pool)
        pool.run("condor_off", "-master")
        try:
            master.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            master.kill()
            master.wait()
            pytest.fail(f"condor_master still running {STOP_TIMEOUT} s after condor_off -master")
        finally:
            output.close()
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def _wait_until_up(pool, master, output):
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        status = pool.run("condor_status", "-af", "Name")
        if status.returncode == 0 and status.stdout.strip():
            return
        if master.poll() is not None:
            output.seek(0)
            pytest.fail(f"condor_master exited with status {master.returncode}:\n{output.read()}")
        if time.monotonic() > deadline:
            master.kill()
            pytest.fail(f"condor_status did not answer within {START_TIMEOUT} s:\n{_diagnosis(pool)}")
        time.sleep(0.05)


def _diagnosis(pool):
    """The queue, why idle and held jobs wait, and the end of the master's log."""
    parts = [f"condorlite pool: LOCAL_DIR={pool.local_dir}"]
    parts.append(pool.run("condor_q", "-allusers", "-nobatch").stdout)
    waiting = pool.run("condor_q", "-allusers", "-af:j", "JobStatus").stdout.split("\n")
    stuck = [line.split()[0] for line in waiting if line.split()[1:] in (["1"], ["5"])]
    for job in stuck[:10]:
        analysis = pool.run("condor_q", "-analyze", job)
        parts.append(f"--- condor_q -analyze {job}\n{analysis.stdout}{analysis.stderr}")
    log = pool.local_dir / "log" / "MasterLog"
    if log.exists():
        lines = log.read_text(errors="replace").splitlines()[-100:]
        parts.append(f"--- last {len(lines)} lines of {log}\n" + "\n".join(lines))
    return "\n".join(parts)


def pytest_terminal_summary(terminalreporter, config):
    diagnosis = config.stash.get(DIAGNOSIS, None)
    if diagnosis is not None:
        terminalreporter.write_sep("=", "condorlite pool after failed tests")
        terminalreporter.write_line(diagnosis)
