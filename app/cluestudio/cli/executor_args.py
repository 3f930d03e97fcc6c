"""``--executor local|processes|dask|ray`` and its options, shared by the batch commands
(docs/cluster.md)."""

from __future__ import annotations

import argparse
from typing import Any

EXECUTORS = ("local", "processes", "dask", "ray")


def add_executor_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("where the work runs (docs/cluster.md)")
    group.add_argument("--executor", default="local", choices=EXECUTORS,
                       help="local: this process (default); processes: this machine's cores; "
                            "dask / ray: a cluster ([cluster] extra)")
    group.add_argument("--workers", type=int, default=0, metavar="N",
                       help="processes, or a cluster started here: worker processes "
                            "(default: this machine's cores, at least 2)")
    group.add_argument("--scheduler", default="", metavar="ADDRESS",
                       help="dask: a running scheduler (tcp://HOST:8786); none = a local "
                            "cluster")
    group.add_argument("--ray-address", default="", metavar="ADDRESS",
                       help="ray: a running cluster (HOST:6379 or ray://HOST:10001); none = "
                            "a local Ray")


def executor_options(args: argparse.Namespace) -> Any:
    from cluestudio.app.executors import ExecutorOptions

    return ExecutorOptions(args.executor, args.workers, args.scheduler, args.ray_address)
