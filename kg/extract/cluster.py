"""Phase 1 of the build (per-paper extraction) as Dask tasks: `kg build --dask TARGET`.

The papers are cut into partitions in input order; each partition is one task running
`extract_partition` on a Dask worker, which loads the spaCy pipeline once per worker process
from its installed packages (nothing is downloaded). Results are taken in partition order,
whichever worker finishes first, so the graph is byte-identical to a local build. When a
worker dies mid-build the scheduler reruns its tasks on the others (up to
`distributed.scheduler.allowed-failures` times per task).

Dask is an optional dependency (`pip install 'paperkg[dask]'`): it is imported only here, and
only when a build asks for it.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import uuid
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import ClusterError
from kg.extract.extractor import ExtractorConfig, cached_extractor
from kg.extract.partition import PartitionResult, extract_partition
from kg.types import Paper

if TYPE_CHECKING:
    from distributed import Client, Future

LOCAL_PREFIX = "local:"
#: Papers per task, as many as a batch of the local worker pool (`kg.build`): big enough that
#: a task's overhead (a few ms) is lost in its parsing (~1 s at ~30 papers/s per worker), small
#: enough that the last tasks end close together and a lost worker costs little work.
DEFAULT_PARTITION = 32
#: Tasks in flight per worker thread: keeps every worker busy while the client holds only a
#: bounded number of partitions and results in memory.
TASKS_PER_THREAD = 4
TASK_PREFIX = "kg-extract"


@dataclass(frozen=True, slots=True)
class DaskTarget:
    """Where phase 1 runs: `local:N` (a LocalCluster of N worker processes), a scheduler
    address (`tcp://host:8786`, `host:8786`) or a scheduler file (`dask scheduler
    --scheduler-file`), and how many papers go in one task.

    >>> DaskTarget.parse("local:2")
    DaskTarget(local_workers=2, address=None, scheduler_file=None, partition_size=32)
    >>> DaskTarget.parse("10.0.0.5:8786").address
    'tcp://10.0.0.5:8786'
    """

    local_workers: int | None = None
    address: str | None = None
    scheduler_file: Path | None = None
    partition_size: int = DEFAULT_PARTITION

    @classmethod
    def parse(cls, spec: str, *, partition_size: int = DEFAULT_PARTITION) -> DaskTarget:
        if partition_size < 1:
            raise ClusterError(f"a Dask partition holds at least 1 paper, not {partition_size}")
        spec = spec.strip()
        if spec.startswith(LOCAL_PREFIX):
            count = spec.removeprefix(LOCAL_PREFIX)
            if not count.isdigit() or int(count) < 1:
                raise ClusterError(f"--dask {spec!r}: write local:N with N >= 1 worker "
                                   "processes, e.g. local:2")
            return cls(local_workers=int(count), partition_size=partition_size)
        if spec.endswith(".json") or Path(spec).is_file():
            return cls(scheduler_file=Path(spec), partition_size=partition_size)
        if not spec:
            raise ClusterError("--dask needs a scheduler address (tcp://host:8786), a "
                               "scheduler file or local:N")
        address = spec if "://" in spec else f"tcp://{spec}"
        return cls(address=address, partition_size=partition_size)

    def describe(self) -> str:
        if self.local_workers is not None:
            return f"a local Dask cluster of {self.local_workers} worker processes"
        if self.scheduler_file is not None:
            return f"the Dask scheduler of {self.scheduler_file}"
        return f"the Dask scheduler at {self.address}"


@contextmanager
def connect(target: DaskTarget, config: ExtractorConfig | None = None) -> Iterator[Client]:
    """A client of the target's scheduler (a LocalCluster started and stopped around it).

    Given the extraction `config`, a local cluster's workers are forked from this process
    after it has loaded the pipeline, as `kg.extract.partition.extracting`'s are: they inherit
    it instead of each loading their own (seconds per worker), where the platform can fork.
    """
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise ClusterError("kg build --dask needs Dask: pip install 'paperkg[dask]'") from exc
    if target.local_workers is not None:
        method = dask.config.get("distributed.worker.multiprocessing-method")
        if config is not None and "fork" in mp.get_all_start_methods():
            cached_extractor(config).preload()
            method = "fork"
        with dask.config.set({"distributed.worker.multiprocessing-method": method}), \
                LocalCluster(n_workers=target.local_workers, threads_per_worker=1,
                             processes=True, dashboard_address=None,
                             silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
            yield client
        return
    if target.scheduler_file is not None and not target.scheduler_file.is_file():
        raise ClusterError(f"{target.scheduler_file}: no such scheduler file (write it with "
                           "`dask scheduler --scheduler-file PATH`)")
    try:
        client = Client(target.address, scheduler_file=(
            str(target.scheduler_file) if target.scheduler_file is not None else None))
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach {target.describe()}: {exc}; start one with "
                           "`dask scheduler` and `dask worker ADDRESS` (docs/SCALE.md)") from exc
    with client:
        yield client


def extract_on_dask(
    papers: Iterable[Paper],
    target: DaskTarget,
    *,
    config: ExtractorConfig,
    cache: str | None = None,
) -> Iterator[PartitionResult]:
    """Extract `papers` on the target's workers; one `PartitionResult` per partition comes
    back, in input order. `cache` is the parse cache folder each worker opens (its own disk's
    at that path, or a shared one; `kg.extract.cache`)."""
    with connect(target, config) as client:
        threads = sum(client.nthreads().values())
        window = max(2, TASKS_PER_THREAD * threads)
        run = uuid.uuid4().hex[:12]
        pending: deque[tuple[int, list[Paper], Future]] = deque()
        for index, partition in enumerate(_batched(papers, target.partition_size)):
            key = f"{TASK_PREFIX}-{run}-{index:06d}"
            pending.append((index, partition,
                            client.submit(extract_partition, partition, config, cache, key=key)))
            if len(pending) >= window:
                yield from _result(*pending.popleft(), target)
        while pending:
            yield from _result(*pending.popleft(), target)


def _result(index: int, partition: list[Paper], future: Any,
            target: DaskTarget) -> Iterator[PartitionResult]:
    from distributed import CancelledError, KilledWorker

    try:
        result: PartitionResult = future.result()
    except KilledWorker as exc:
        raise ClusterError(
            f"partition {index} (papers {partition[0].id} .. {partition[-1].id}) was lost with "
            f"every worker that ran it on {target.describe()} ({exc}); a paper that crashes "
            "the pipeline, or workers short of memory, do this") from exc
    except (CancelledError, OSError) as exc:
        raise ClusterError(f"{target.describe()} went away during the build: {exc}") from exc
    finally:
        future.release()
    yield result


def _batched(items: Iterable[Paper], size: int) -> Iterator[list[Paper]]:
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch
