"""`kg build --dask`: extraction as tasks on a real Dask cluster, started here as a `dask
scheduler` and two `dask worker` processes on 127.0.0.1, gives the graph of the local build
byte for byte, and survives a worker killed in the middle of the build.

The input is the first 36 records of the paperlists fixture, in partitions of 4 papers (9
tasks), so each build takes seconds. Nothing waits for a fixed time: every wait is for a real
condition (a file written, a worker registered, a task running, a process ended) with a
generous deadline, for a loaded machine.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kg.cli import main

pytestmark = [pytest.mark.model, pytest.mark.dask]

FIXTURE = Path(__file__).parent / "fixtures" / "paperlists_sample.json.gz"
PAPERS = 36
PARTITION = 4
BIN = Path(sys.executable).parent
#: Deadlines for a loaded 2-core machine: a worker imports distributed and spaCy and loads the
#: pipeline before its first task ends.
START_TIMEOUT = 120.0
BUILD_TIMEOUT = 600.0


def wait_until(condition: Callable[[], bool], what: str, timeout: float = START_TIMEOUT) -> None:
    """Poll `condition` until it holds; fail naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)


def kg(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], prog_name="kg")


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    records = json.loads(gzip.decompress(FIXTURE.read_bytes()))[:PAPERS]
    path = tmp_path_factory.mktemp("dask") / "papers.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def local_graph(sample: Path) -> bytes:
    """The graph of the local build (one process), the bytes every Dask build must give."""
    out = sample.with_name("local.ttl")
    result = kg("build", sample, "-o", out, "--processes", "1", "--no-progress")
    assert result.exit_code == 0, result.output
    return out.read_bytes()


@dataclass
class Cluster:
    """A `dask scheduler` and its `dask worker`s, each a process of its own."""

    folder: Path
    scheduler: subprocess.Popen[bytes]
    address: str
    workers: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    logs: list[Path] = field(default_factory=list)

    def log_tail(self) -> str:
        return "\n".join(f"--- {p.name}\n" + p.read_text(errors="replace")[-2000:]
                         for p in self.logs if p.exists())


def _spawn(folder: Path, name: str, args: list[str], logs: list[Path]) -> subprocess.Popen[bytes]:
    log = folder / f"{name}.log"
    logs.append(log)
    with log.open("wb") as out:  # the child keeps its own handle: a pipe could fill and block
        return subprocess.Popen([str(BIN / "dask"), *args], cwd=folder, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    """A scheduler on 127.0.0.1 (a free port) and two single-thread workers without a nanny
    (a killed worker stays dead), all registered before the test starts."""
    from distributed import Client

    logs: list[Path] = []
    scheduler_file = tmp_path / "scheduler.json"
    scheduler = _spawn(tmp_path, "scheduler", [
        "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
        "--scheduler-file", str(scheduler_file)], logs)
    running = Cluster(tmp_path, scheduler, "", logs=logs)
    try:
        wait_until(lambda: _address(scheduler_file) is not None or scheduler.poll() is not None,
                   "the scheduler's address")
        address = _address(scheduler_file)
        assert address is not None, running.log_tail()
        running.address = address
        for name in ("w1", "w2"):
            running.workers[name] = _spawn(tmp_path, name, [
                "worker", address, "--name", name, "--nthreads", "1", "--no-nanny",
                "--host", "127.0.0.1", "--no-dashboard", "--memory-limit", "0"], logs)
        with Client(address, timeout=START_TIMEOUT) as client:
            client.wait_for_workers(2, timeout=START_TIMEOUT)
        yield running
    finally:  # workers first: a worker whose scheduler is gone waits to reconnect
        _stop(list(running.workers.values()))
        _stop([scheduler])


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _address(scheduler_file: Path) -> str | None:
    try:
        return str(json.loads(scheduler_file.read_text(encoding="utf-8"))["address"])
    except (OSError, ValueError, KeyError):
        return None  # not written yet, or half written


def test_a_build_on_a_dask_cluster_gives_the_local_bytes(
    cluster: Cluster, sample: Path, local_graph: bytes, tmp_path: Path,
) -> None:
    out = tmp_path / "dask.ttl"
    result = kg("build", sample, "-o", out, "--dask", cluster.address,
                "--dask-partition", PARTITION)
    assert result.exit_code == 0, result.output + cluster.log_tail()
    assert f"{PAPERS} papers on the Dask scheduler at {cluster.address}" in result.stderr
    assert out.read_bytes() == local_graph


def test_a_worker_killed_mid_build_is_survived_with_the_same_bytes(
    cluster: Cluster, sample: Path, local_graph: bytes, tmp_path: Path,
) -> None:
    """w1 is killed (SIGKILL) while it runs one of the build's tasks; the scheduler gives that
    task to w2, and the graph is the local one. The build finds the scheduler through its
    scheduler file."""
    from distributed import Client

    out = tmp_path / "dask.ttl"
    build_log = tmp_path / "build.log"
    with build_log.open("wb") as log:
        build = subprocess.Popen(
            [str(BIN / "kg"), "build", str(sample), "-o", str(out),
             "--dask", str(cluster.folder / "scheduler.json"),  # the scheduler file this time
             "--dask-partition", str(PARTITION)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        with Client(cluster.address, timeout=START_TIMEOUT) as monitor:
            victim = _worker_address(monitor, "w1")
            lost: list[str] = []

            def victim_holds_two_tasks() -> bool:
                # One task running and the next one waiting behind it (the scheduler gives a
                # one-thread worker two): the second cannot end before the kill lands.
                assert build.poll() is None, build_log.read_text(errors="replace")
                lost[:] = [k for k in monitor.processing().get(victim, ())
                           if str(k).startswith("kg-extract-")]
                return len(lost) >= 2

            wait_until(victim_holds_two_tasks, "w1 to hold two tasks of the build")
            cluster.workers["w1"].kill()
            cluster.workers["w1"].wait(timeout=START_TIMEOUT)
            wait_until(lambda: victim not in monitor.scheduler_info()["workers"],
                       "the scheduler to notice that w1 is gone")
            assert build.wait(timeout=BUILD_TIMEOUT) == 0, (
                build_log.read_text(errors="replace") + cluster.log_tail())
            # The tasks lost with w1 went back to the scheduler and were computed again on w2,
            # the one worker left.
            survivor = _worker_address(monitor, "w2")
            rerun = [key for key in lost if _rerun_on(monitor.story(key), key) == {survivor}]
            assert rerun, [monitor.story(key) for key in lost]
            assert f"{PAPERS} papers on the Dask scheduler of {cluster.folder}" in (
                build_log.read_text(errors="replace"))
    finally:
        if build.poll() is None:
            os.killpg(build.pid, signal.SIGKILL)
            build.wait()
    assert out.read_bytes() == local_graph


def _rerun_on(story: list[tuple[object, ...]], key: str) -> set[object]:
    """The workers that computed `key` after the scheduler took it back from a worker that
    was running it or had it waiting (none if it never did)."""
    steps = [(row[2], row[3]) for row in story if row[0] == "scheduler" and row[1] == key]
    if ("processing", "released") not in steps:
        return set()
    taken_back = steps.index(("processing", "released"))
    if ("processing", "memory") not in steps[taken_back + 1:]:
        return set()
    return {row[0] for row in story
            if row[0] != "scheduler" and row[1:4] == (key, "executing", "memory")}


def _worker_address(client: object, name: str) -> str:
    workers = client.scheduler_info()["workers"]  # type: ignore[attr-defined]
    return next(address for address, info in workers.items() if info["name"] == name)


def test_a_local_cluster_gives_the_local_bytes(
    sample: Path, local_graph: bytes, tmp_path: Path,
) -> None:
    out = tmp_path / "dask.ttl"
    result = kg("build", sample, "-o", out, "--dask", "local:2", "--dask-partition", PARTITION)
    assert result.exit_code == 0, result.output
    assert f"{PAPERS} papers on a local Dask cluster of 2 worker processes" in result.stderr
    assert out.read_bytes() == local_graph


def test_an_unreachable_scheduler_is_a_clean_error(sample: Path, tmp_path: Path) -> None:
    import dask

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path / "graph.ttl"
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        result = kg("build", sample, "-o", out, "--dask", f"127.0.0.1:{port}")
    assert result.exit_code == 1, result.output
    assert f"kg build: error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}" in (
        result.stderr)
    assert not out.exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--dask", "local:0"], "write local:N with N >= 1"),
    (["--dask", "local:two"], "write local:N with N >= 1"),
    (["--dask", "local:2", "--processes", "2"], "--processes and --dask exclude each other"),
    (["--dask", "local:2", "--dask-partition", "0"], "--dask-partition"),
])
def test_bad_dask_options_are_usage_errors(
    sample: Path, tmp_path: Path, args: list[str], message: str,
) -> None:
    result = kg("build", sample, "-o", tmp_path / "graph.ttl", *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_without_dask_installed_the_error_says_what_to_install(
    sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    for package in ("dask", "distributed"):
        monkeypatch.setitem(sys.modules, package, None)  # import fails as if not installed
    result = kg("build", sample, "-o", tmp_path / "graph.ttl", "--dask", "local:2")
    assert result.exit_code == 1, result.output
    assert "kg build: error: kg build --dask needs Dask: pip install 'paperkg[dask]'" in (
        result.stderr)
    assert not (tmp_path / "graph.ttl").exists()
