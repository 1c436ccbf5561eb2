"""``python -m hzmj.server [--host H] [--port P] [--db URL] [--redis URL --node-url URL
--node-id ID]``: the same as ``hzmj serve``."""

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
    parser.add_argument("--forwarded-allow-ips", default=None,
                        help="proxies whose X-Forwarded-* headers are trusted ('*': any; "
                             "default HZMJ_FORWARDED_ALLOW_IPS, else 127.0.0.1)")
    parser.add_argument("--redis", default=None, help="redis://… shared by the nodes")
    parser.add_argument("--node-url", default=None, help="where other nodes reach this one")
    parser.add_argument("--node-id", default=None)
    args = parser.parse_args()
    serve(args.host, args.port, args.db, args.log_level, args.public_url,
          args.forwarded_allow_ips, args.redis, args.node_url, args.node_id)


if __name__ == "__main__":
    main()
