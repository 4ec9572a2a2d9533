"""multipart/form-data bodies written piece by piece: a file is read in
chunks as the connection sends it, never whole, and the body's length is
computed beforehand when every file's size is known."""

from __future__ import annotations

import io
import json
import os
import secrets
from typing import IO, Any, Callable, Mapping, Iterator, List, Optional, Sequence, Tuple, Union

CHUNK = 256 * 1024

FileInput = Union[str, "os.PathLike[str]", IO[bytes]]
"""A file to upload: a path, or a binary file object opened for reading."""

UploadProgress = Callable[[int, Optional[int]], None]
"""Called as the files' bytes are sent: bytes so far in this attempt and
their total (None when a file's size is unknown)."""


class _Source:
    """One file of a form: where its bytes come from and how to rewind them."""

    def __init__(self, item: FileInput) -> None:
        self.path: Optional[str] = None
        self.obj: Optional[IO[bytes]] = None
        self.start = 0
        self.size: Optional[int] = None
        if isinstance(item, (str, os.PathLike)):
            self.path = os.fspath(item)
            self.name = os.path.basename(self.path)
            self.size = os.stat(self.path).st_size
            return
        self.obj = item
        self.name = os.path.basename(str(getattr(item, "name", "") or "file")) or "file"
        if _seekable(item):
            self.start = item.tell()
            end = item.seek(0, io.SEEK_END)
            item.seek(self.start)
            self.size = end - self.start

    @property
    def rewindable(self) -> bool:
        return self.path is not None or self.size is not None

    def chunks(self) -> Iterator[bytes]:
        if self.path is not None:
            with open(self.path, "rb") as f:
                yield from _read(f)
            return
        assert self.obj is not None
        if self.size is not None:
            self.obj.seek(self.start)
        yield from _read(self.obj)


def _seekable(f: IO[bytes]) -> bool:
    try:
        return f.seekable()
    except (AttributeError, ValueError, OSError):
        return False


def _read(f: IO[bytes]) -> Iterator[bytes]:
    while True:
        b = f.read(CHUNK)
        if not b:
            return
        yield b


def _quote(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "%0D").replace("\n", "%0A")


class Form:
    """A process call's form: its fields in order, then its files."""

    def __init__(self, fields: Sequence[Tuple[str, str]], files: Union[FileInput, Sequence[FileInput]]) -> None:
        self.boundary = "docmill-" + secrets.token_hex(16)
        self.fields = list(fields)
        # One path or file object alone is one file, not a sequence of them.
        if isinstance(files, (str, os.PathLike)) or hasattr(files, "read"):
            files = [files]  # type: ignore[list-item]
        self.sources = [_Source(f) for f in files]

    @property
    def content_type(self) -> str:
        return f"multipart/form-data; boundary={self.boundary}"

    @property
    def rewindable(self) -> bool:
        """Whether the body can be sent again (for a retry)."""
        return all(s.rewindable for s in self.sources)

    def _field_part(self, name: str, value: str) -> bytes:
        return (f'--{self.boundary}\r\nContent-Disposition: form-data; name="{_quote(name)}"\r\n\r\n').encode() + \
            value.encode() + b"\r\n"

    def _file_head(self, s: _Source) -> bytes:
        return (f'--{self.boundary}\r\nContent-Disposition: form-data; name="file"; filename="{_quote(s.name)}"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n").encode()

    def _tail(self) -> bytes:
        return f"--{self.boundary}--\r\n".encode()

    def file_bytes(self) -> Optional[int]:
        """The files' bytes together, or None when one's size is unknown."""
        total = 0
        for s in self.sources:
            if s.size is None:
                return None
            total += s.size
        return total

    def length(self) -> Optional[int]:
        """The body's exact length, or None (it is then sent chunked)."""
        files = self.file_bytes()
        if files is None:
            return None
        n = sum(len(self._field_part(k, v)) for k, v in self.fields) + len(self._tail())
        return n + files + sum(len(self._file_head(s)) + 2 for s in self.sources)

    def body(self, progress: Optional[UploadProgress] = None) -> Iterator[bytes]:
        """The body, a piece at a time; each call starts from the beginning."""
        for k, v in self.fields:
            yield self._field_part(k, v)
        total, sent = self.file_bytes(), 0
        for s in self.sources:
            yield self._file_head(s)
            for chunk in s.chunks():
                sent += len(chunk)
                yield chunk
                if progress is not None:
                    progress(sent, total)
            yield b"\r\n"
        yield self._tail()


def field_list(params: Optional[Mapping[str, Any]], extra: List[Tuple[str, str]]) -> List[Tuple[str, str]]:
    """Form fields from a tool's params (booleans as true/false, lists and
    dicts as JSON, other values as str), then extra."""
    out: List[Tuple[str, str]] = []
    for k, v in sorted((params or {}).items()):
        if v is None:
            continue
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif isinstance(v, (list, dict)):
            v = json.dumps(v)
        out.append((str(k), str(v)))
    return out + extra
