"""The server process's garbage collector (ServerConfig.gc_gen0): hundreds of live
matches made Python's default full collections pause every room for 100–300 ms."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from hzmj.server.bots import Thinker
from hzmj.server.config import ServerConfig, tune_gc


@pytest.fixture
def restore_gc() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*before)


def test_tune_gc_freezes_what_is_alive_and_collects_rarely(restore_gc: None) -> None:
    tune_gc(12_345)
    assert gc.get_threshold() == (12_345, 20, 20)
    assert gc.get_freeze_count() > 10_000  # pytest, hzmj and their imports at least


def test_tune_gc_zero_keeps_pythons_collector(restore_gc: None) -> None:
    gc.set_threshold(700, 10, 10)
    tune_gc(0)
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0


def test_the_server_default_and_the_bot_workers_collect_like_the_server() -> None:
    assert ServerConfig().gc_gen0 == 50_000

    async def threshold_in_a_worker() -> tuple[int, int, int]:
        thinker = Thinker(1, gc_gen0=23_456)
        try:
            return await thinker.run(gc.get_threshold)
        finally:
            thinker.close()

    assert asyncio.run(threshold_in_a_worker()) == (23_456, 20, 20)
