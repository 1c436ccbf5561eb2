"""Run ``arena_resumable.py`` with the strong bot's settings changed, for paired trials.

    uv run python benchmarks/strong_variant.py \\
        IMPROVE=0,BAOTOU_IN_SEARCH=0,CLAIM_SHARE=0,BAOTOU_LEAF=0,PIAO_IN_SEARCH=0,FEED_CLAIM=0 \\
        --bots strong,efficiency,efficiency,efficiency --hands 400 --seed 1 \\
        --out /tmp/strong-before.jsonl --workers 2
    uv run python benchmarks/pair_runs.py /tmp/strong-now.jsonl strong \\
        /tmp/strong-before.jsonl strong

The first argument lists ``KEY=VALUE`` settings, comma-separated (``""`` for none):
each key is a module constant of :mod:`hzmj.bots.strong` (``IMPROVE``, ``CLAIM_SHARE``,
``BAOTOU_IN_SEARCH``, ``BAOTOU_LEAF``, ``PIAO_IN_SEARCH``, ``FEED_CLAIM``,
``DEALER_WEIGHT``, ``LOSS``, ``SEARCH_MAX_SHANTEN``, ``CLAIM_SEARCH_MAX_SHANTEN``,
``IMPROVE_MAX_SHANTEN``,
``LEAVES_PER_MS``, …), given as a number, ``0``/``1`` for a flag.  The rest is passed to
``arena_resumable.py``; every seat named ``strong`` (and the expert's prior) plays the
changed bot.  The arena's worker processes are forked from this one, so they inherit
the settings.  ``ValueError`` for an unknown key.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import hzmj.bots.strong as strong


def apply(settings: str) -> None:
    """Change the strong bot as ``settings`` says (see the module docstring)."""
    for item in filter(None, settings.split(",")):
        key, _, value = item.partition("=")
        if not (key.isupper() and hasattr(strong, key)):
            raise ValueError(f"unknown setting {key!r}")
        old = getattr(strong, key)
        setattr(strong, key, value == "1" if isinstance(old, bool) else type(old)(value))


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) >= 2 else 2)
    apply(sys.argv[1])
    sys.argv = ["arena_resumable.py", *sys.argv[2:]]
    runpy.run_path(str(Path(__file__).with_name("arena_resumable.py")), run_name="__main__")


if __name__ == "__main__":
    main()
