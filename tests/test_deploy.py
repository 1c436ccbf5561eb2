"""The shipped cluster deployment (deploy/compose.yaml, deploy/nginx.conf) keeps the
per-address limits per visitor: the nodes believe X-Forwarded-For from nginx's fixed
address only, and nginx sets it to the visitor's own address in every location (a
client-sent header appended to would let a visitor name any address)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"


def test_the_nodes_trust_exactly_the_proxys_fixed_address() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    proxy = services["proxy"]["networks"]["default"]["ipv4_address"]
    nodes = [s for s in services.values() if "hzmj serve" in " ".join(s.get("command", []))]
    assert len(nodes) == 3
    for node in nodes:
        trusted = re.search(r"--forwarded-allow-ips (\S+)", " ".join(node["command"]))
        assert trusted is not None and trusted.group(1) == proxy


def test_nginx_forwards_the_visitors_own_address_everywhere() -> None:
    conf = (DEPLOY / "nginx.conf").read_text()
    locations = re.findall(r"location\s+\S+\s*\{(.*?)\n    \}", conf, re.S)
    assert len(locations) == 2
    for body in locations:
        assert "proxy_set_header X-Forwarded-For $remote_addr;" in body
    assert "$proxy_add_x_forwarded_for" not in conf


def test_the_cluster_parses_redis_replies_in_c() -> None:
    # every node reads the whole live set (hzmj:live) twice a second to find rooms with
    # no owner, on the event loop of every table's clock and bot: replies parsed in C
    from redis.utils import HIREDIS_AVAILABLE

    assert HIREDIS_AVAILABLE
