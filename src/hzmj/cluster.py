"""Deals on a Ray cluster: ``hzmj arena --ray [ADDRESS]`` and ``hzmj simulate --ray``.

Ray is an optional extra (``pip install 'hzmj[cluster]'``, or ``uv sync --extra
cluster``).  ``address`` ``"local"`` starts a Ray cluster on this machine; any other
address joins a running one (``"auto"``, or ``"ray://HEAD:10001"`` through Ray Client),
shipping the ``hzmj`` package to its workers.  Tasks are whole matches, each from its
own seed, and results come back in submission order, so a run gives the same figures as
the process pool or a single process (``docs/bots.md``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar

from hzmj import compiled_core

LOCAL: Final = "local"

In = TypeVar("In")
Out = TypeVar("Out")


class ClusterError(RuntimeError):
    """Ray is missing or the cluster cannot be reached."""


def _ray() -> Any:
    # Ray would start its workers with `uv run` when the driver runs under uv, in an
    # environment without the extra (so without Ray): workers use this interpreter
    os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    try:
        import ray
    except ImportError:
        raise ClusterError("Ray is not installed: pip install 'hzmj[cluster]' "
                           "(or uv sync --extra cluster)") from None
    return ray


def available() -> bool:
    """Whether Ray can be imported here."""
    try:
        _ray()
    except ClusterError:
        return False
    return True


def connect(address: str) -> None:
    """Start (``"local"``) or join (any other address) a Ray cluster, once per process."""
    ray = _ray()
    if ray.is_initialized():
        return
    quiet: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                             "logging_level": "ERROR"}
    try:
        if address == LOCAL:
            ray.init(**quiet)
        else:  # the cluster's workers get this very package (its code is all they need)
            package = str(Path(__file__).resolve().parent)
            ray.init(address=address, runtime_env={"py_modules": [package]}, **quiet)
    except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError…
        hint = ("" if os.environ.get("RAY_AUTH_MODE") else
                "; a cluster with token authentication (Ray's default from 2.59) also "
                "needs RAY_AUTH_MODE=token and its token (RAY_AUTH_TOKEN, from `ray "
                "get-auth-token` on the head)")
        raise ClusterError(f"cannot reach the Ray cluster at {address!r}: {exc}{hint}"
                           ) from None


def ray_map(fn: Callable[[In], Out], items: Sequence[In], address: str,
            progress: Callable[[int], None] | None = None) -> list[Out]:
    """``[fn(x) for x in items]``, each call a Ray task; results in the order of
    ``items`` whatever order they finish in.  ``fn`` must be a module-level function."""
    if compiled_core():
        raise ClusterError("--ray needs the pure-Python build: Ray cannot unpickle the "
                           "compiled engine's frozen dataclasses (docs/performance.md)")
    ray = _ray()
    connect(address)
    task = ray.remote(fn)
    refs = [task.remote(x) for x in items]
    where = {ref: i for i, ref in enumerate(refs)}
    out: list[Any] = [None] * len(refs)
    pending = list(refs)
    done = 0
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for ref in ready:
            out[where[ref]] = ray.get(ref)
            done += 1
            if progress:
                progress(done)
    return out
