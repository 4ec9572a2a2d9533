"""Build the SDK's wheel into dist/, offline: with ``python -m build`` when
it is installed, else ``pip wheel --no-deps --no-build-isolation``, else
the in-tree backend called directly (each runs wheel_backend.py, so the
wheel is the same). DOCMILL_VERSION is the server's version."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import wheel_backend

HERE = os.path.dirname(os.path.abspath(__file__))
DIST = os.path.join(HERE, "dist")


def main() -> int:
    version = wheel_backend.pep440(wheel_backend.server_version())
    for name in os.listdir(DIST) if os.path.isdir(DIST) else []:
        if name.endswith(".whl"):
            os.remove(os.path.join(DIST, name))
    if importlib.util.find_spec("build") is not None:
        how = [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", DIST, HERE]
    elif importlib.util.find_spec("pip") is not None:
        how = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
               "--wheel-dir", DIST, HERE]
    else:
        how = []
    if how and subprocess.run(how, cwd=HERE).returncode == 0:
        made = [n for n in os.listdir(DIST) if n.endswith(".whl")]
    else:
        made = [wheel_backend.build_wheel(DIST)]
    print(f"docmill SDK {version}: {', '.join(os.path.join('dist', n) for n in made)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
