"""The engine's win test on integer group keys equals the win test on counts (RULES
§7.1–7.2, §5.1–5.2), on winning and near-winning hands with 0–4 财神 in both modes."""

from __future__ import annotations

import random

import pytest

from hzmj.hand import (
    group_keys,
    is_standard_win,
    is_win_counts,
    is_win_keys,
    key_units,
    shanten_counts,
    shanten_draws,
    shanten_swaps,
    split_wilds,
)
from hzmj.tiles import WHITE, full_set, parse_tiles


def winning_tiles(rng: random.Random) -> list[int]:
    """14 tiles: four sets and a pair (or seven pairs), a few swapped for random tiles."""
    pool = full_set()
    rng.shuffle(pool)
    if rng.random() < 0.2:
        kinds = rng.sample(range(34), 7)
        tiles = [k for k in kinds for _ in range(2)]
    else:
        tiles = [rng.randrange(34)] * 2
        for _ in range(4):
            k = rng.randrange(34)
            tiles += [k, k + 1, k + 2] if k < 27 and k % 9 <= 6 and rng.random() < 0.6 else [k] * 3
    for _ in range(rng.choice((0, 0, 1, 2))):
        tiles[rng.randrange(14)] = pool.pop()
    if max(tiles.count(k) for k in tiles) > 4:  # RULES §1: four copies of each kind
        return winning_tiles(rng)
    return tiles


def keys_of(tiles: list[int], caishen: int) -> tuple[list[int], int]:
    units = key_units(caishen)
    keys, wilds = [0, 0, 0, 0], 0
    for t in tiles:
        u = units[t]
        if u is None:
            wilds += 1
        else:
            keys[u[0]] += u[1]
    return keys, wilds


@pytest.mark.parametrize("caishen", [WHITE, 4, 13, 22, 27])
def test_win_on_keys_equals_win_on_counts(caishen: int) -> None:
    rng = random.Random(caishen)
    wins = 0
    for _ in range(5_000):
        tiles = winning_tiles(rng)
        counts, wilds = split_wilds(tiles, caishen)
        keys, key_wilds = keys_of(tiles, caishen)
        assert (keys, key_wilds) == (group_keys(counts), wilds)
        got = is_win_keys(keys, wilds, seven_pairs=True)
        assert got == is_win_counts(counts, wilds)
        assert is_win_keys(keys, wilds, seven_pairs=False) == is_standard_win(counts, wilds)
        wins += got
    assert wins > 1_200  # the sample really holds many winning hands


@pytest.mark.parametrize("size", [2, 5, 8, 11, 14])
def test_win_on_keys_equals_win_on_counts_for_any_tiles(size: int) -> None:
    # dealt tiles (mostly not winning) of every concealed size the engine tests: each
    # group key's packed inputs are filled on first use and then read from the table
    rng = random.Random(size)
    wall = [k for k in range(34) for _ in range(4)]
    for _ in range(3_000):
        wilds = rng.randrange(min(5, size + 1))
        counts = [0] * 34
        for t in rng.sample(wall, size - wilds):
            counts[t] += 1
        keys = group_keys(counts)
        for _ in range(2):  # computed, then from the table
            assert is_win_keys(keys, wilds, size == 14) == is_win_counts(counts, wilds)
            assert is_win_keys(keys, wilds, False) == is_standard_win(counts, wilds)


def test_group_keys_are_base_5_counts() -> None:
    counts = [0] * 34
    counts[0], counts[8], counts[9 + 4], counts[27], counts[33] = 4, 3, 2, 1, 4
    assert group_keys(counts) == [4 + 3 * 5 ** 8, 2 * 5 ** 4, 0, 1 + 4 * 5 ** 6]
    assert key_units(WHITE)[8] == (0, 5 ** 8) and key_units(WHITE)[WHITE] is None


def test_white_dragons_play_as_the_caishen_kind_in_keys() -> None:
    # RULES §5.2: with 5m as 财神, 白 stands for 5m: 4m 白 6m is a run
    tiles = parse_tiles("4mP6m123p456p789s11z")
    keys, wilds = keys_of(tiles, caishen=4)
    assert wilds == 0 and is_win_keys(keys, wilds, seven_pairs=True)


def random_counts(rng: random.Random, pool: list[int], size: int) -> tuple[list[int], int]:
    """Natural counts of ``size`` tiles from ``pool`` (0–3 of them 财神) and the 财神."""
    rng.shuffle(pool)
    wilds = rng.choice((0, 0, 1, 2, 3))
    counts = [0] * 34
    for t in pool[: size - wilds]:
        counts[t] += 1
    return counts, wilds


def after_each_draw(counts: list[int], wilds: int, melds: int) -> tuple[list[int], list[int]]:
    """The drawable kinds and ``shanten_counts`` after drawing each, one at a time."""
    kinds = [k for k in range(34) if counts[k] < 4]
    out = []
    for k in kinds:
        counts[k] += 1
        out.append(shanten_counts(counts, wilds, melds))
        counts[k] -= 1
    return kinds, out


@pytest.mark.parametrize("melds", [0, 1, 3])
def test_shanten_draws_equals_shanten_counts_after_each_draw(melds: int) -> None:
    """The batched shanten after one draw (the bots' useful tiles) equals
    ``shanten_counts`` on each hand plus that tile, with 0–3 财神, every drawable kind."""
    rng = random.Random(melds)
    checked = 0
    for _ in range(400):
        counts, wilds = random_counts(rng, full_set(), 13 - 3 * melds)
        kinds, expected = after_each_draw(counts, wilds, melds)
        assert shanten_draws(counts, wilds, melds, kinds) == expected, (counts, wilds)
        checked += len(kinds)
    assert checked > 400 * 25


def test_shanten_draws_refuses_a_fifth_copy() -> None:
    counts = [0] * 34
    counts[0] = 4
    with pytest.raises(ValueError, match="fifth copy"):
        shanten_draws(counts, 0, 0, [0])


@pytest.mark.parametrize("melds", [0, 1, 3])
def test_shanten_swaps_equals_shanten_counts_after_each_discard_and_draw(melds: int) -> None:
    """The batched shanten after a discard and a draw (the efficiency bot's useful tiles
    after each discard) equals ``shanten_counts`` of each such hand, with 0–3 财神, every
    held kind discarded and every drawable kind drawn; hands from the whole set and from
    one or two suits (many draws and discards in one group or half)."""
    rng = random.Random(100 + melds)
    checked = 0
    for n in range(240):
        pool = full_set()
        if n % 2:  # crowded: one or two suits, sometimes the honours
            suits = rng.sample(range(4), rng.choice((1, 2)))
            pool = [t for t in pool if (t // 9 if t < 27 else 3) in suits]
        counts, wilds = random_counts(rng, pool, 14 - 3 * melds)
        swaps = []
        expected = []
        for d in (k for k in range(34) if counts[k]):
            counts[d] -= 1
            kinds, row = after_each_draw(counts, wilds, melds)
            counts[d] += 1
            swaps.append((d, kinds))
            expected.append(row)
        assert shanten_swaps(counts, wilds, melds, swaps) == expected, (counts, wilds)
        checked += sum(len(r) for r in expected)
    assert checked > 240 * 100


def test_shanten_swaps_refuses_a_missing_discard_and_a_fifth_copy() -> None:
    counts = [0] * 34
    counts[0] = 4
    counts[5] = 1
    with pytest.raises(ValueError, match="no tile of kind 1"):
        shanten_swaps(counts, 0, 0, [(1, [2])])
    with pytest.raises(ValueError, match="fifth copy"):
        shanten_swaps(counts, 0, 0, [(5, [0])])
    assert shanten_swaps(counts, 0, 0, [(0, [0])]) == [[shanten_counts(counts, 0, 0)]]
