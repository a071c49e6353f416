"""The conftest.py fixture at work: .ci/run runs these (tests/ci_pool/run.sh) with pytest."""

import os
import subprocess
import textwrap

import pytest


@pytest.fixture(scope="session")
def condor_pool_knobs():
    # An override, as a project's conftest.py would write it.
    return {"NUM_CPUS": "2", "MACHINE_RESOURCE_Widgets": "3"}


def test_the_pool_answers_with_the_knobs(condor_pool):
    status = subprocess.run(
        ["condor_status", "-af", "Cpus", "Widgets"], capture_output=True, text=True, check=True
    )
    assert status.stdout.split() == ["2", "3"]
    local_dir = subprocess.run(
        ["condor_config_val", "LOCAL_DIR"], capture_output=True, text=True, check=True
    )
    assert local_dir.stdout.strip() == str(condor_pool.local_dir)
    assert os.environ["_CONDOR_LOCAL_DIR"] == str(condor_pool.local_dir)


def test_a_job_runs_to_completion(condor_pool, tmp_path):
    (tmp_path / "job.sub").write_text(
        textwrap.dedent(
            """\
            executable = /bin/sh
            arguments = "-c 'echo hello from $(Cluster).$(Process)'"
            output = job.out
            error = job.err
            log = job.log
            request_widgets = 1
            queue
            """
        )
    )
    subprocess.run(["condor_submit", "job.sub"], cwd=tmp_path, check=True, capture_output=True)
    wait = condor_pool.run("condor_wait", "-wait", "60", str(tmp_path / "job.log"))
    assert wait.returncode == 0, wait.stdout + wait.stderr
    assert (tmp_path / "job.out").read_text().startswith("hello from ")
    history = condor_pool.run("condor_history", "-af", "ExitCode", "-limit", "1")
    assert history.stdout.split() == ["0"]
