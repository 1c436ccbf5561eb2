"""hzmj: Hangzhou Mahjong (杭州麻将) rules engine, bots and table server."""

__version__ = "0.1.0"


def compiled_core() -> bool:
    """Whether the core modules (tiles, hand, scoring, game) run as the opt-in
    mypyc-compiled build rather than pure Python (docs/performance.md).  The compiled
    classes cannot be patched or unpickled by Ray, so tests and ``--ray`` ask here."""
    import hzmj.game

    return not (hzmj.game.__file__ or "").endswith(".py")
