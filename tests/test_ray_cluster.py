"""Arenas and self-play on a Ray cluster (issue 15): the same figures as the process
pool and the single process for the same seeds.  Skipped without the extra
``hzmj[cluster]`` (Ray)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

import hzmj
from hzmj import cluster
from hzmj.arena import plan, run, summarise
from hzmj.bots.registry import make_bot
from hzmj.cli import _bare_ray, app
from hzmj.rules import Rules
from hzmj.simulate import simulate

# Ray's serializer cannot rebuild the compiled build's frozen dataclasses (a
# FrozenInstanceError on unpickling); the pure-Python run covers Ray
pytestmark = pytest.mark.skipif(hzmj.compiled_core(),
                                reason="Ray cannot unpickle the compiled engine's frozen "
                                       "dataclasses (docs/performance.md)")
needs_ray = pytest.mark.skipif(not cluster.available(),
                               reason="Ray is not installed (the extra hzmj[cluster])")


def _without_times(report: dict[str, object]) -> dict[str, object]:
    bots = report["bots"]
    assert isinstance(bots, dict)
    return {**report, "bots": {n: {k: v for k, v in b.items() if not k.startswith("decision")}
                               for n, b in bots.items()}}


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    cluster.connect  # noqa: B018 - sets Ray's environment before the import below
    cluster.available()
    ray = pytest.importorskip("ray", reason="Ray is not installed (the extra hzmj[cluster])")
    for attempt in range(3):  # on a loaded machine the raylet may miss Ray's 30 s
        try:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                     logging_level="ERROR")
            break
        except Exception as exc:
            ray.shutdown()
            if attempt == 2:
                pytest.skip(f"a local Ray cluster did not start: {exc}")
    yield
    ray.shutdown()


@needs_ray
def test_ray_arena_and_simulate_equal_the_process_pool(local_ray: None) -> None:
    rules = Rules(players=2)
    games = plan(["efficiency", "random"], rules, 24, 5, duplicate=True)
    pool = run(games, rules, workers=2)
    on_ray = run(games, rules, ray=cluster.LOCAL)
    assert [(g.game, [(s.name, s.hand_points, s.multipliers) for s in g.seats])
            for g in on_ray] == \
        [(g.game, [(s.name, s.hand_points, s.multipliers) for s in g.seats]) for g in pool]
    assert _without_times(summarise(on_ray)) == _without_times(summarise(pool))
    for hands in (20, 3):  # 20: the last match is cut short (8-hand matches)
        alone = simulate(rules, hands, 7, ["efficiency", "random"], make_bot).to_dict()
        spread = simulate(rules, hands, 7, ["efficiency", "random"], make_bot,
                          ray=cluster.LOCAL).to_dict()
        alone.pop("hands_per_s")
        spread.pop("hands_per_s")
        assert spread == alone and spread["hands"] == hands
    points = Rules(players=2, match_mode="points", start_points=40)
    alone = simulate(points, 30, 2, ["efficiency", "random"], make_bot).to_dict()
    spread = simulate(points, 30, 2, ["efficiency", "random"], make_bot,
                      ray=cluster.LOCAL).to_dict()
    assert {**spread, "hands_per_s": 0} == {**alone, "hands_per_s": 0}


@needs_ray
def test_cli_ray_flag(local_ray: None) -> None:
    runner = CliRunner()
    out = runner.invoke(app, ["simulate", "--hands", "8", "--players", "2", "--bot",
                              "efficiency", "--json", "--ray"])
    assert out.exit_code == 0, out.output
    base = runner.invoke(app, ["simulate", "--hands", "8", "--players", "2", "--bot",
                               "efficiency", "--json"])
    assert '"digest"' in out.stdout
    assert out.stdout.split('"digest"')[1] == base.stdout.split('"digest"')[1]
    arena = runner.invoke(app, ["arena", "--bots", "efficiency,random", "--hands", "8",
                                "--ray", "--json"])
    assert arena.exit_code == 0, arena.output


def test_bare_ray_means_a_local_cluster() -> None:
    assert _bare_ray(["arena", "--ray"]) == ["arena", "--ray", "local"]
    assert _bare_ray(["arena", "--ray", "--json"]) == ["arena", "--ray", "local", "--json"]
    assert _bare_ray(["arena", "--ray", "auto"]) == ["arena", "--ray", "auto"]


def test_missing_ray_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> None:
        raise cluster.ClusterError("Ray is not installed: pip install 'hzmj[cluster]'")

    monkeypatch.setattr(cluster, "_ray", missing)
    out = CliRunner().invoke(app, ["simulate", "--hands", "2", "--ray"])
    assert out.exit_code == 2 and "hzmj[cluster]" in out.output


def test_compiled_core_names_the_build_of_every_core_module() -> None:
    """``hzmj.compiled_core`` agrees with the files the core modules were loaded from
    (all pure-Python sources here: this module is skipped on the compiled build)."""
    import importlib.machinery

    import hzmj.game
    import hzmj.hand
    import hzmj.scoring
    import hzmj.tiles

    files = [m.__file__ or "" for m in (hzmj.tiles, hzmj.hand, hzmj.scoring, hzmj.game)]
    assert hzmj.compiled_core() is False
    assert all(f.endswith(".py") for f in files)
    assert not any(f.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) for f in files)


def test_ray_refuses_the_compiled_core_before_connecting(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """``--ray`` with the compiled engine stops with a clear message and never reaches
    Ray (whose serializer cannot rebuild the compiled frozen dataclasses)."""
    def no_ray() -> None:
        raise AssertionError("Ray was reached")

    monkeypatch.setattr(cluster, "compiled_core", lambda: True)
    monkeypatch.setattr(cluster, "_ray", no_ray)
    with pytest.raises(cluster.ClusterError, match="pure-Python build"):
        cluster.ray_map(abs, [1, -2], "local")
    out = CliRunner().invoke(app, ["simulate", "--hands", "2", "--ray"])
    assert out.exit_code == 2 and "pure-Python build" in out.output
