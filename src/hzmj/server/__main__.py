"""``python -m hzmj.server [--host H] [--port P] [--db URL]``: the same as ``hzmj serve``."""

from __future__ import annotations

import argparse

from hzmj.server.app import serve


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m hzmj.server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--db", default=None, help="SQLite file or database URL")
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--public-url", default=None,
                        help="the address friends use, e.g. https://mj.example.org")
    parser.add_argument("--forwarded-allow-ips", default="127.0.0.1",
                        help="proxies whose X-Forwarded-* headers are trusted ('*': any)")
    args = parser.parse_args()
    serve(args.host, args.port, args.db, args.log_level, args.public_url,
          args.forwarded_allow_ips)


if __name__ == "__main__":
    main()
