"""The RL environments name the ``rl`` extra when its packages are missing (docs/rl.md)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from hzmj.env import RL_EXTRA

ROOT = Path(__file__).resolve().parent.parent

# a package set to None in sys.modules is one that cannot be imported, as if not installed
BLOCK = """
import sys
sys.modules[{name!r}] = None
try:
    import hzmj.env.gym_env
except ImportError as exc:
    print("ImportError:", exc)
else:
    print("imported")
"""


@pytest.mark.parametrize("missing", ["gymnasium", "pettingzoo", "numpy"])
def test_env_without_the_rl_extra_names_it(missing: str) -> None:
    out = subprocess.run([sys.executable, "-c", BLOCK.format(name=missing)],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    assert out.strip() == (f"ImportError: hzmj.env needs {missing} (the rl extra): "
                           "pip install 'hzmj[rl]' (or uv sync --extra rl)")


def test_rl_extra_lists_what_the_env_imports() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    names = sorted(req.split(">")[0].split("[")[0] for req in extras["rl"])
    assert names == sorted(RL_EXTRA) == ["gymnasium", "numpy", "pettingzoo"]
