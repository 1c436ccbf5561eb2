"""hzmj: Hangzhou Mahjong (杭州麻将) rules engine, bots and table server."""

__version__ = "0.1.0"
