"""condorlite's own checks of dask-jobqueue against the pool, beside its upstream tests.

- test_security_temporary: upstream's test of the same name fails against any HTCondor before
  it submits anything (see KNOWN_UPSTREAM_FAILURES in conftest.py); this is its check with
  the job script read correctly, then the same TLS worker run on the pool.
- test_cancel_stops_the_worker: what HTCondorJob.close relies on, timed: a condor_rm that
  names another schedd fails and leaves the worker running; condor_rm of the job id stops
  the worker's processes (within 10 s, upstream's bound for test_job) and takes the job out
  of the queue.
"""

import os
import re
import subprocess
import time

import pytest
from distributed import Client
from distributed.security import Security

from dask_jobqueue import HTCondorCluster

QUEUE_WAIT = 60  # seconds, as upstream's tests wait

# What the job script's worker command line gives for an option: HTCondor's Arguments line
# ends with the quotes that close it, which are not part of the value.
TLS_OPTION = r"--tls-{} ([^\s'\"]+)"


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _condor_q_ids():
    out = subprocess.run(
        ["condor_q", "-af", "ClusterId", "ProcId"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return {".".join(line.split()) for line in out.splitlines() if line.strip()}


@pytest.mark.env("htcondor")
def test_security_temporary(loop):
    shared = os.getcwd()
    with HTCondorCluster(
        cores=1,
        memory="500MiB",
        disk="100MiB",
        security=Security.temporary(),
        shared_temp_directory=shared,
        protocol="tls",
        loop=loop,
    ) as cluster:
        assert cluster.scheduler_spec["options"]["security"] == cluster.security
        job_script = cluster.job_script()
        assert "tls://" in job_script
        for option, prefix in [
            ("key", ".dask-jobqueue.worker.key"),
            ("cert", ".dask-jobqueue.worker.cert"),
            ("ca-file", ".dask-jobqueue.worker.ca_file"),
        ]:
            path = re.findall(TLS_OPTION.format(option), job_script)[0]
            assert os.path.exists(path), path
            assert os.path.basename(path).startswith(prefix), path
            assert os.path.dirname(path) == shared, path

        cluster.scale(jobs=1)
        with Client(cluster) as client:
            assert client.submit(lambda x: x + 1, 10).result(timeout=30) == 11


@pytest.mark.env("htcondor")
def test_cancel_stops_the_worker(loop):
    with HTCondorCluster(
        cores=1, memory="500MiB", disk="100MiB", name="cancelled", loop=loop
    ) as cluster:
        with Client(cluster) as client:
            cluster.scale(jobs=1)
            client.wait_for_workers(1, timeout=QUEUE_WAIT)
            # (Holding the job object itself would fail the cluster's close: dask-jobqueue's
            # Job.close leaves its status running, and distributed checks the jobs it
            # created that are still alive then.)
            (job_id,) = [job.job_id for job in cluster.workers.values()]
            assert job_id in _condor_q_ids()
            # The worker and its nanny, both processes of the job.
            pids = set(client.run(os.getpid).values())
            pids |= set(client.run(os.getppid).values())
            assert all(_alive(pid) for pid in pids)

            wrong = subprocess.run(
                ["condor_rm", "-name", "wrong.docker", job_id],
                capture_output=True,
                text=True,
            )
            assert wrong.returncode != 0
            assert "wrong.docker" in wrong.stderr
            assert job_id in _condor_q_ids()
            assert all(_alive(pid) for pid in pids)

            start = time.monotonic()
            subprocess.run(["condor_rm", job_id], check=True, capture_output=True)
            while any(_alive(pid) for pid in pids):
                assert time.monotonic() < start + 10, "condor_rm left the worker running"
                time.sleep(0.01)
            stopped = time.monotonic() - start
            while job_id in _condor_q_ids():
                assert time.monotonic() < start + 10, "the removed job stayed in the queue"
                time.sleep(0.05)
            # The worker shuts down gracefully on the SIGTERM condor_rm has sent it.
            print("condor_rm %s: worker processes gone in %.3f s" % (job_id, stopped))
