"""Self-play simulation (issue: game engine CLI `hzmj simulate`)."""

from hzmj.bots.random_bot import RandomBot
from hzmj.rules import Rules
from hzmj.simulate import simulate


def _random(name: str, seed: int) -> RandomBot:
    assert name == "random"
    return RandomBot(seed)


def test_simulate_same_seed_same_digest_and_points() -> None:
    a = simulate(Rules(hands=8), 12, seed=5, bot_names=["random"] * 4, make_bot=_random)
    b = simulate(Rules(hands=8), 12, seed=5, bot_names=["random"] * 4, make_bot=_random)
    assert a.hands == b.hands == 12
    assert a.digest == b.digest
    assert a.points == b.points
    assert a.zero_sum and sum(a.points) == 0
    assert a.matches == 2  # 8 hands, then 4 of the second match


def test_simulate_other_seed_other_digest() -> None:
    a = simulate(Rules(players=3), 5, seed=1, bot_names=["random"] * 3, make_bot=_random)
    b = simulate(Rules(players=3), 5, seed=2, bot_names=["random"] * 3, make_bot=_random)
    assert a.digest != b.digest
    assert a.hands == b.hands == 5
    assert a.draws + sum(a.wins_by_name.values()) == 5
