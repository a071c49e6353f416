"""pytest plugin for running dask-jobqueue's own test suite against condorlite.

dask-jobqueue's wheel ships its tests (dask_jobqueue/tests/) but not the conftest.py they rely
on, which lives at the root of its repository. This module provides what those tests expect:

- the ``-E NAME`` option and the ``env(NAME)`` / ``xfail_env({NAME: reason})`` markers: with
  ``-E htcondor`` only the tests marked for HTCondor run (everything else is skipped), and an
  ``xfail_env`` reason for htcondor marks the test as an expected failure;
- the ``loop`` fixture (distributed's event loop in a thread), with ``cleanup`` overridden so
  that it reloads dask-jobqueue's configuration instead of checking for leaked threads and
  processes (dask-jobqueue's clusters are not built for that check);
- ``EnvSpecificCluster`` (the cluster class of the selected environment, one parameter per
  scheduler) and ``Cluster`` (every cluster class), with HTCondor's required ``disk`` set.

It also handles the upstream tests that cannot pass against any HTCondor as written: two run
through a shim (``KNOWN_UPSTREAM_BROKEN``), one is a strict expected failure whose pool-facing
part test_condorlite.py checks (``KNOWN_UPSTREAM_FAILURES``). With ``-E``, the tests of other
environments are deselected rather than skipped. run.sh loads this file as a plugin
(``--noconftest -p conftest``), since the tests it serves live in site-packages.
"""

import asyncio
import copy
import warnings

import dask
import distributed.utils_test
import pytest

# The event-loop fixtures the tests request by name.
from distributed.utils_test import loop, loop_in_thread  # noqa: F401

import dask_jobqueue.config
from dask_jobqueue import (
    HTCondorCluster,
    LSFCluster,
    MoabCluster,
    OARCluster,
    PBSCluster,
    SGECluster,
    SLURMCluster,
)
from dask_jobqueue.core import Job
from dask_jobqueue.local import LocalCluster

# Every environment the suite knows, by its -E name (None: no batch system at all).
ENVIRONMENTS = {
    None: LocalCluster,
    "pbs": PBSCluster,
    "moab": MoabCluster,
    "slurm": SLURMCluster,
    "sge": SGECluster,
    "lsf": LSFCluster,
    "oar": OARCluster,
    "htcondor": HTCondorCluster,
}

# Upstream tests that fail against any HTCondor before they reach the pool, and why. They run
# as strict expected failures (they must fail with that exception); test_condorlite.py checks
# what they would have checked against the pool.
KNOWN_UPSTREAM_FAILURES = {
    "test_jobqueue_core.py::test_security_temporary": (
        AssertionError,
        "its regex --tls-key (\\S+) takes in the '\" that closes HTCondor's Arguments line, "
        "so the key file it looks for does not exist",
    ),
}

# Tests that call ``Job._call(...).strip()`` from synchronous code: ``Job._call`` is a
# coroutine function, so they fail with "'coroutine' object has no attribute 'strip'" against
# any HTCondor, before they look at the pool. For these tests only, ``Job._call`` called with
# no event loop running in the calling thread runs the command to completion and returns its
# output, so that the rest of each test (condor_q -batch naming the worker, condor_q -af
# jobpid listing the jobs, a condor_rm that fails leaving the jobs in place) is checked
# against condorlite as upstream meant it to be.
KNOWN_UPSTREAM_BROKEN = {
    "test_htcondor.py::test_basic",
    "test_htcondor.py::test_extra_args_broken_cancel",
}


def pytest_addoption(parser):
    parser.addoption(
        "-E",
        action="store",
        metavar="NAME",
        help="only run tests matching the environment NAME.",
    )


def _write_test_certificate():
    """test_security copies ``ca.pem`` and ``key.pem`` from dask_jobqueue/tests/, which the
    wheel does not ship: make a self-signed certificate (used as CA and as every party's
    certificate, like upstream's) and its key there when they are missing."""
    import datetime
    import os

    import dask_jobqueue.tests
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID

    directory = os.path.dirname(dask_jobqueue.tests.__file__)
    cert_path = os.path.join(directory, "ca.pem")
    key_path = os.path.join(directory, "key.pem")
    if os.path.exists(cert_path) and os.path.exists(key_path):
        return
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "condorlite tests")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    with open(key_path, "wb") as f:
        f.write(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.TraditionalOpenSSL,
                serialization.NoEncryption(),
            )
        )
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))


def pytest_configure(config):
    _write_test_certificate()
    config.addinivalue_line(
        "markers", "env(NAME): only run test if environment NAME matches"
    )
    config.addinivalue_line(
        "markers", "xfail_env(NAME): known failure for environment NAME"
    )


def _env_names(item):
    """The environments a test is marked for: ``env("x")`` or ``env(["x", "y"])``."""
    names = []
    for mark in item.iter_markers(name="env"):
        arg = mark.args[0]
        names.extend(arg if isinstance(arg, list) else [arg])
    return names


def pytest_collection_modifyitems(config, items):
    """With -E NAME, deselect (rather than skip) the tests that are not for NAME, so that the
    summary counts only the tests that ran; mark the known upstream failures."""
    env = config.getoption("-E")
    if env is not None:
        selected, deselected = [], []
        for item in items:
            (selected if env in _env_names(item) else deselected).append(item)
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            items[:] = selected
    if env == "htcondor":
        for item in items:
            known = KNOWN_UPSTREAM_FAILURES.get(_node_key(item))
            if known:
                exception, reason = known
                item.add_marker(
                    pytest.mark.xfail(
                        raises=exception, strict=True, reason="upstream: " + reason
                    )
                )


def pytest_runtest_setup(item):
    warnings.filterwarnings(
        "ignore", message="Port 8787 is already in use", category=UserWarning
    )
    env = item.config.getoption("-E")
    wanted = _env_names(item)
    if env is None:
        # Without -E: tests marked only for real batch systems are skipped.
        run = not wanted or None in wanted
    else:
        # With -E NAME: only the tests marked for NAME.
        run = env in wanted
    if not run:
        pytest.skip("test requires env in %r" % wanted)
    reasons = {}
    for mark in item.iter_markers(name="xfail_env"):
        reasons.update(mark.args[0])
    if env in reasons:
        item.add_marker(pytest.mark.xfail(reason=reasons[env]))


@pytest.fixture
def cleanup():
    """distributed's ``cleanup`` checks for leaked threads and processes after every test,
    which dask-jobqueue's clusters do not pass; reload dask-jobqueue's configuration instead."""
    dask_jobqueue.config.reconfigure()
    yield


def _reset_config():
    """distributed's ``reset_config`` (called around ``loop``) drops dask-jobqueue's
    configuration; put it back after resetting."""
    dask.config.config.clear()
    dask.config.config.update(copy.deepcopy(distributed.utils_test.original_config))
    dask_jobqueue.config.reconfigure()


distributed.utils_test.reset_config = _reset_config


def _with_htcondor_disk(request, cls):
    if cls is HTCondorCluster:
        # The loop fixture resets dask's configuration when it starts; make it start first,
        # whatever order the test lists its fixtures in, so that the setting below survives.
        if "loop" in request.fixturenames:
            request.getfixturevalue("loop")
        # HTCondorCluster refuses to start without a disk request.
        dask.config.set({"jobqueue.htcondor.disk": "1GB"})
    return cls


@pytest.fixture(
    params=[
        pytest.param(cls, marks=[pytest.mark.env(name)])
        for name, cls in ENVIRONMENTS.items()
    ]
)
def EnvSpecificCluster(request):
    """The cluster class of the environment selected with -E."""
    return _with_htcondor_disk(request, request.param)


@pytest.fixture(params=list(ENVIRONMENTS.values()))
def Cluster(request):
    """Every cluster class, for tests that need no batch system."""
    return _with_htcondor_disk(request, request.param)


def _node_key(item):
    return "%s::%s" % (item.path.name, item.originalname)


@pytest.fixture(autouse=True)
def _synchronous_job_call(request, monkeypatch):
    """The shim for KNOWN_UPSTREAM_BROKEN (and only for them)."""
    if _node_key(request.node) not in KNOWN_UPSTREAM_BROKEN:
        yield
        return
    coroutine_call = Job._call

    def call(cmd, **kwargs):
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            # The test's own thread: run the command here and hand back its output.
            return asyncio.run(coroutine_call(cmd, **kwargs))
        return coroutine_call(cmd, **kwargs)

    monkeypatch.setattr(Job, "_call", staticmethod(call))
    request.node.user_properties.append(("shim", "synchronous Job._call"))
    yield


def pytest_terminal_summary(terminalreporter):
    shimmed = [
        report.nodeid
        for reports in terminalreporter.stats.values()
        for report in reports
        if getattr(report, "when", None) == "call"
        and ("shim", "synchronous Job._call") in getattr(report, "user_properties", [])
    ]
    if shimmed:
        terminalreporter.write_line(
            "condorlite shim (upstream calls .strip() on an un-awaited coroutine): "
            + ", ".join(sorted(set(shimmed)))
        )
