"""HTTP for the SDK: one request per connection over http.client, the
key sent with every call, problem+json answers raised as APIError, and
bounded retries (see Retry)."""

from __future__ import annotations

import http.client
import json
import random
import secrets
import time
import urllib.parse
from typing import Any, Callable, Dict, Iterator, Mapping, Optional, Tuple, Union

from ._multipart import Form, UploadProgress
from ._version import __version__
from .errors import APIError

USER_AGENT = f"docmill-python/{__version__}"


class RetryEvent:
    """A retry about to happen: the attempt that failed (1 for the
    first), the seconds the client waits before the next, and why."""

    def __init__(self, attempt: int, wait: float, error: BaseException) -> None:
        self.attempt = attempt
        self.wait = wait
        self.error = error

    def __repr__(self) -> str:
        return f"RetryEvent(attempt={self.attempt}, wait={self.wait:.2f}, error={self.error!r})"


class Retry:
    """How a client retries. A call is retried when the server answers
    429, 503 or 507 with a Retry-After of at most ``max_wait`` seconds,
    after that long (the server refused it before doing anything); and
    after a network error, a 408, a 502, 503 or 504 without Retry-After (a
    proxy's) or a 500 ``internal`` or ``worker_lost``, after 0.5 s, 1 s,
    2 s, ... (at most ``max_wait``, each up to half shorter at random),
    when the call may be repeated: an idempotent method, or a POST that
    carries an Idempotency-Key (process calls always do, one per call,
    the same on each of its attempts, so a retried upload is one job,
    charged once), with files that can be read again (paths, seekable
    file objects). A longer Retry-After (``quota_exceeded`` waits for the
    month's end) is raised at once.
    """

    def __init__(self, max_attempts: int = 5, max_wait: float = 60.0,
                 on_retry: Optional[Callable[[RetryEvent], None]] = None) -> None:
        self.max_attempts = max_attempts
        self.max_wait = max_wait
        self.on_retry = on_retry

    def backoff(self, attempt: int) -> float:
        d: float = min(0.5 * (2 ** min(attempt - 1, 16)), self.max_wait)
        return d - random.uniform(0, d / 2)

    def wait_after(self, attempt: int, err: BaseException, repeatable: bool) -> Optional[float]:
        """Seconds to wait before the next attempt, or None: give up."""
        if attempt >= self.max_attempts:
            return None
        if not isinstance(err, APIError):
            return self.backoff(attempt) if repeatable else None
        if err.status in (429, 503, 507) and err.retry_after is not None:
            return err.retry_after if err.retry_after <= self.max_wait else None
        if err.status in (408, 502, 503, 504) or (err.status == 500 and err.code in ("internal", "worker_lost")):
            return self.backoff(attempt) if repeatable else None
        return None


NO_RETRY = Retry(max_attempts=1)

NETWORK_ERRORS = (OSError, http.client.HTTPException)
RETRIED = (APIError, OSError, http.client.HTTPException)

Body = Union[None, bytes, Form]


def new_idempotency_key() -> str:
    """128 random bits, in hex."""
    return "dmpy_" + secrets.token_hex(16)


class Response:
    """A successful answer: status, headers (lower-case names) and the
    decoded JSON body (None when empty)."""

    def __init__(self, status: int, headers: Dict[str, str], data: Any) -> None:
        self.status = status
        self.headers = headers
        self.data = data


class Transport:
    def __init__(self, url: str, key: str, retry: Retry, timeout: float) -> None:
        parsed = urllib.parse.urlsplit(url.rstrip("/"))
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"not an http(s) URL: {url!r}")
        self.url = url.rstrip("/")
        self.key = key
        self.retry = retry
        self.timeout = timeout

    def connection(self, url: str) -> Tuple[http.client.HTTPConnection, str]:
        u = urllib.parse.urlsplit(url)
        cls = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
        target = u.path or "/"
        if u.query:
            target += "?" + u.query
        return cls(u.netloc, timeout=self.timeout), target

    def request(self, method: str, path: str, *, query: Optional[Mapping[str, Any]] = None,
                json_body: Any = None, form: Optional[Form] = None,
                headers: Optional[Mapping[str, str]] = None,
                progress: Optional[UploadProgress] = None) -> Response:
        """Send one logical call, retrying as self.retry says."""
        url = self.url + path
        q = {k: str(v) for k, v in (query or {}).items() if v is not None}
        if q:
            url += "?" + urllib.parse.urlencode(q)
        h = {"User-Agent": USER_AGENT, "Accept": "application/json"}
        if self.key:
            h["Authorization"] = "Bearer " + self.key
        h.update(headers or {})
        body: Body = None
        if json_body is not None:
            body = json.dumps(json_body).encode()
            h["Content-Type"] = "application/json"
        elif form is not None:
            body = form
            h["Content-Type"] = form.content_type
        repeatable = method in ("GET", "HEAD", "PUT", "DELETE", "OPTIONS") or "Idempotency-Key" in h
        if form is not None and not form.rewindable:
            repeatable = False
        attempt = 0
        while True:
            attempt += 1
            try:
                return self.send(method, url, h, body, progress)
            except RETRIED as err:
                wait = self.retry.wait_after(attempt, err, repeatable)
                if wait is None:
                    raise
                if self.retry.on_retry is not None:
                    self.retry.on_retry(RetryEvent(attempt, wait, err))
                time.sleep(wait)

    def send(self, method: str, url: str, headers: Dict[str, str], body: Body,
             progress: Optional[UploadProgress]) -> Response:
        """One attempt: a status of 300 or more is raised as APIError."""
        conn, target = self.connection(url)
        try:
            resp = self.exchange(conn, method, target, headers, body, progress)
            status, hdrs = resp.status, {k.lower(): v for k, v in resp.getheaders()}
            raw = resp.read(1 << 20) if status >= 300 else resp.read()
            data = parse_json(raw)
            if status >= 300:
                raise APIError(status, data if isinstance(data, dict) else {}, hdrs, raw.decode("utf-8", "replace").strip())
            return Response(status, hdrs, data)
        finally:
            conn.close()

    def exchange(self, conn: http.client.HTTPConnection, method: str, target: str, headers: Dict[str, str],
                 body: Body, progress: Optional[UploadProgress]) -> http.client.HTTPResponse:
        """Send the request and return the answer's head. A server that
        answers before it read the whole body (a refusal from the headers)
        is heard rather than taken for a network error."""
        h = dict(headers)
        payload: Union[None, bytes, Iterator[bytes]] = None
        if isinstance(body, Form):
            length = body.length()
            if length is not None:
                h["Content-Length"] = str(length)
            payload = body.body(progress)
        else:
            payload = body
        try:
            conn.request(method, target, body=payload, headers=h)
        except NETWORK_ERRORS as err:
            try:
                return conn.getresponse()
            except NETWORK_ERRORS:
                raise err from None
        return conn.getresponse()

    def download(self, url: str, out: Any, chunk: int = 256 * 1024) -> int:
        """Stream a signed result URL into the binary file out (no key is
        sent: the link is its own authority); returns the bytes written."""
        if url.startswith("/"):
            url = self.url + url
        conn, target = self.connection(url)
        try:
            conn.request("GET", target, headers={"User-Agent": USER_AGENT})
            resp = conn.getresponse()
            if resp.status >= 300:
                raw = resp.read(1 << 20)
                data = parse_json(raw)
                hdrs = {k.lower(): v for k, v in resp.getheaders()}
                raise APIError(resp.status, data if isinstance(data, dict) else {}, hdrs, raw.decode("utf-8", "replace"))
            n = 0
            while True:
                b = resp.read(chunk)
                if not b:
                    return n
                out.write(b)
                n += len(b)
        finally:
            conn.close()


def parse_json(raw: bytes) -> Any:
    if not raw.strip():
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None
