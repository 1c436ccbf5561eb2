"""Build (or remove) the opt-in compiled engine: the hot core modules compiled by mypyc.

    uv run python tools/mypyc_build.py          # build: .so files beside the sources
    uv run python tools/mypyc_build.py --clean  # back to pure Python
    uv run python tools/mypyc_build.py --check  # print which mode is active

Python imports an extension module in preference to the ``.py`` beside it, so once built
every ``uv run`` (server, CLI, tests, benchmarks) uses the compiled modules; removing them
falls back to the pure-Python sources, which stay the default and the reference.  Needs a
C compiler and the Python headers (docs/performance.md).  Not compiled: ``rules.py``
(compiled classes check argument types before ``__post_init__``, so a bad option would
raise ``TypeError`` instead of ``RulesError``), ``events.py`` (protocol validation), and
everything outside the core.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
MODULES = ["hzmj/tiles.py", "hzmj/hand.py", "hzmj/scoring.py", "hzmj/game.py"]
GROUP = "hzmj_core"  # the shared library is src/hzmj_core__mypyc.*.so


def built() -> list[Path]:
    """The compiled files now shadowing the sources."""
    out = sorted(SRC.glob(f"{GROUP}__mypyc*.so")) + sorted(SRC.glob(f"{GROUP}__mypyc*.pyd"))
    for module in MODULES:
        stem = Path(module).with_suffix("")
        out += sorted((SRC / stem.parent).glob(f"{stem.name}.*.so"))
        out += sorted((SRC / stem.parent).glob(f"{stem.name}.*.pyd"))
    return out


def clean() -> None:
    for path in built():
        path.unlink()
    shutil.rmtree(ROOT / "build" / "mypyc", ignore_errors=True)


def build() -> None:
    from mypyc.build import mypycify
    from setuptools import setup

    clean()
    temp = ROOT / "build" / "mypyc"
    os.chdir(SRC)  # build_ext --inplace puts each module beside its source
    setup(name="hzmj-compiled",
          ext_modules=mypycify(MODULES, opt_level="3", group_name=GROUP,
                               target_dir=str(temp / "c")),
          script_args=["build_ext", "--inplace", "--build-temp", str(temp / "obj"),
                       "--build-lib", str(temp / "lib"), "-q"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    parser.add_argument("--check", action="store_true", help="print the active mode")
    args = parser.parse_args()
    if args.clean:
        clean()
    elif not args.check:
        build()
    files = built()
    print("compiled:" if files else "pure Python (no compiled modules)",
          *[str(p.relative_to(ROOT)) for p in files], sep="\n  " if files else "")
    sys.exit(0)


if __name__ == "__main__":
    main()
