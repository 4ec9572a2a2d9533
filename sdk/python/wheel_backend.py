"""A PEP 517 build backend for the SDK, standard library only, so that
``python3 -m build``, ``pip wheel --no-build-isolation`` and a plain
``python3 make_wheel.py`` all build the same wheel offline.

The version comes from DOCMILL_VERSION (the server's, as ``git describe``
gives it: the Makefile's VERSION), put in PEP 440 form by pep440; the
wheel's docmill/_version.py carries both."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from typing import Any, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "docmill"
SUMMARY = "Python SDK of the docmill document-processing API"
# Fixed timestamps make the wheel the same bytes for the same sources.
EPOCH = (2020, 1, 1, 0, 0, 0)


def pep440(server: str) -> str:
    """The PEP 440 form of a server version: v1.2.3 -> 1.2.3;
    v1.2.3-4-gabc123 -> 1.2.3.post4+gabc123; a bare commit abc123 ->
    0+gabc123; -dirty -> a .dirty local part; anything else -> 0+devel-ish."""
    v = server.strip()
    dirty = v.endswith("-dirty")
    if dirty:
        v = v[: -len("-dirty")]
    local: List[str] = []
    m = re.fullmatch(r"v?(\d+(?:\.\d+)*)(?:-(\d+)-g([0-9a-f]+))?", v)
    if m:
        public = m.group(1) + (f".post{m.group(2)}" if m.group(2) else "")
        if m.group(3):
            local.append("g" + m.group(3))
    else:
        public = "0"
        if re.fullmatch(r"[0-9a-f]{7,40}", v):
            local.append("g" + v)
        else:
            local.append(re.sub(r"[^A-Za-z0-9]+", ".", v).strip(".") or "devel")
    if dirty:
        local.append("dirty")
    return public + ("+" + ".".join(local) if local else "")


def server_version() -> str:
    return os.environ.get("DOCMILL_VERSION", "").strip() or "devel"


def _sources() -> List[str]:
    pkg = os.path.join(HERE, NAME)
    return sorted(f for f in os.listdir(pkg) if f.endswith(".py") or f == "py.typed")


def _version_module(server: str, version: str) -> bytes:
    return (f'"""The SDK\'s version: the docmill server\'s it was built with."""\n\n'
            f"SERVER_VERSION = {server!r}\n\n__version__ = {version!r}\n").encode()


def _metadata(version: str) -> bytes:
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\nSummary: {SUMMARY}\n"
            "Requires-Python: >=3.9\nClassifier: Typing :: Typed\n"
            f"Description-Content-Type: text/markdown\n\n{readme}").encode()


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def wheel_files(server: str) -> Tuple[str, List[Tuple[str, bytes]]]:
    """The wheel's version and its files, RECORD last."""
    version = pep440(server)
    files: List[Tuple[str, bytes]] = []
    for f in _sources():
        if f == "_version.py":
            files.append((f"{NAME}/{f}", _version_module(server, version)))
            continue
        with open(os.path.join(HERE, NAME, f), "rb") as src:
            files.append((f"{NAME}/{f}", src.read()))
    dist = f"{NAME}-{version}.dist-info"
    files.append((f"{dist}/METADATA", _metadata(version)))
    files.append((f"{dist}/WHEEL", b"Wheel-Version: 1.0\nGenerator: docmill wheel_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
    record = "\n".join([_record_line(n, d) for n, d in files] + [f"{dist}/RECORD,,"]) + "\n"
    files.append((f"{dist}/RECORD", record.encode()))
    return version, files


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                metadata_directory: Optional[str] = None) -> str:
    version, files = wheel_files(server_version())
    name = f"{NAME}-{version.replace('-', '_')}-py3-none-any.whl"
    os.makedirs(wheel_directory, exist_ok=True)
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files:
            info = zipfile.ZipInfo(path, EPOCH)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return name


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    version = pep440(server_version())
    base = f"{NAME}-{version}"
    os.makedirs(sdist_directory, exist_ok=True)
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tar:
        members = ["pyproject.toml", "wheel_backend.py", "README.md"] + [f"{NAME}/{f}" for f in _sources()]
        for m in members:
            with open(os.path.join(HERE, m), "rb") as f:
                data = f.read()
            if m == f"{NAME}/_version.py":
                data = _version_module(server_version(), version)
            info = tarfile.TarInfo(f"{base}/{m}")
            info.size, info.mode, info.mtime = len(data), 0o644, 1577836800
            tar.addfile(info, io.BytesIO(data))
        pkg = _metadata(version)
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size, info.mode, info.mtime = len(pkg), 0o644, 1577836800
        tar.addfile(info, io.BytesIO(pkg))
    return name


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []
