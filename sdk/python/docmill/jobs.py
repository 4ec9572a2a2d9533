"""Job records and the jobs API: get (with long polls), list, wait, cancel."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple, Union

from .errors import DocmillError, FieldError, field_errors

if TYPE_CHECKING:
    from .client import Client

MAX_POLL_WAIT = 60
"""The longest long poll the server allows (GET /v1/jobs/{id}?wait=N)."""

FINAL = ("done", "failed", "canceled")


class Result:
    """A done job's file: its signed link (absent once expired), size,
    name, type, expiry, and the export to ``export_url`` when one was asked."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = dict(raw)
        self.url: Optional[str] = raw.get("url")
        self.preview_url: Optional[str] = raw.get("preview_url")
        self.size: int = int(raw.get("size", 0))
        self.filename: str = str(raw.get("filename", ""))
        self.content_type: str = str(raw.get("content_type", ""))
        self.expires_at: str = str(raw.get("expires_at", ""))
        self.expired: bool = bool(raw.get("expired", False))
        self.exported_to: Optional[str] = raw.get("exported_to")
        self.export_status: Optional[str] = raw.get("export_status")
        self.export_error: Optional[str] = raw.get("export_error")


class Job:
    """A job record as the API renders it (``raw``), with its parts as
    attributes; ``download`` saves a done job's result."""

    def __init__(self, client: "Client", raw: Mapping[str, Any]) -> None:
        self._client = client
        self.raw: Dict[str, Any] = dict(raw)
        self.id: str = str(raw.get("job_id", ""))
        self.status: str = str(raw.get("status", ""))
        self.tool: str = str(raw.get("tool", ""))
        self.created_at: str = str(raw.get("created_at", ""))
        self.finished_at: Optional[str] = raw.get("finished_at")
        self.meta: Dict[str, Any] = dict(raw.get("meta") or {})
        res = raw.get("result")
        self.result: Optional[Result] = Result(res) if isinstance(res, dict) else None
        err = raw.get("error")
        self.error_code: Optional[str] = err.get("code") if isinstance(err, dict) else None
        self.error_message: Optional[str] = err.get("message") if isinstance(err, dict) else None
        self.errors: List[FieldError] = field_errors(err.get("errors")) if isinstance(err, dict) else []

    def __repr__(self) -> str:
        return f"Job({self.id!r}, tool={self.tool!r}, status={self.status!r})"

    @property
    def finished(self) -> bool:
        """Whether the job reached a final status (done, failed, canceled)."""
        return self.status in FINAL

    def refresh(self) -> "Job":
        """The job as it stands now."""
        return self._client.jobs.get(self.id)

    def wait(self, timeout: Optional[float] = None, progress: Optional[Callable[["Job"], None]] = None) -> "Job":
        """Long-poll until the job is finished (see Jobs.wait)."""
        return self._client.jobs.wait(self.id, timeout=timeout, progress=progress)

    def cancel(self) -> "Job":
        """Cancel it, or delete a finished job's result now."""
        return self._client.jobs.cancel(self.id)

    def download(self, path: Union[str, "os.PathLike[str]"]) -> str:
        """Save the result to path (a directory: under the result's own
        name), streamed; returns the file's path. The link is signed, so no
        key is sent."""
        if self.result is None or not self.result.url:
            raise DocmillError(f"job {self.id} has no result to download (status {self.status})")
        target = os.fspath(path)
        if os.path.isdir(target):
            target = os.path.join(target, self.result.filename or self.id)
        partial = target + ".part"
        with open(partial, "wb") as out:
            self._client._transport.download(self.result.url, out)
        os.replace(partial, target)
        return target


class JobPage:
    """A page of the caller's jobs, newest first; ``next_cursor`` is None
    on the last page."""

    def __init__(self, jobs: List[Job], next_cursor: Optional[str]) -> None:
        self.jobs = jobs
        self.next_cursor = next_cursor


class Jobs:
    """The jobs API of a client: ``client.jobs``."""

    def __init__(self, client: "Client") -> None:
        self._client = client

    def get(self, job_id: str, wait: Optional[int] = None) -> Job:
        """Poll a job; with wait (1 to 60 seconds) the server answers when
        it finishes or after wait, whichever is first (a long poll)."""
        return self._get(job_id, wait)[0]

    def _get(self, job_id: str, wait: Optional[int]) -> Tuple[Job, Dict[str, str]]:
        q = {"wait": wait} if wait else None
        r = self._client._transport.request("GET", "/v1/jobs/" + _seg(job_id), query=q)
        return Job(self._client, r.data), r.headers

    def list(self, status: Optional[str] = None, tool: Optional[str] = None,
             limit: Optional[int] = None, cursor: Optional[str] = None) -> JobPage:
        """One page of the caller's jobs, newest first."""
        q = {"status": status, "tool": tool, "limit": limit, "cursor": cursor}
        r = self._client._transport.request("GET", "/v1/jobs", query=q)
        return JobPage([Job(self._client, j) for j in r.data.get("jobs", [])], r.data.get("next_cursor") or None)

    def iter(self, status: Optional[str] = None, tool: Optional[str] = None, limit: Optional[int] = None) -> Iterator[Job]:
        """Every job of the list, following the cursor page by page."""
        cursor: Optional[str] = None
        while True:
            page = self.list(status=status, tool=tool, limit=limit, cursor=cursor)
            yield from page.jobs
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    def wait(self, job_id: str, timeout: Optional[float] = None,
             progress: Optional[Callable[[Job], None]] = None, poll_wait: int = MAX_POLL_WAIT) -> Job:
        """Long-poll a job until it is finished or timeout seconds pass,
        and return it as it then stands (check ``finished``). progress is
        called with the job after each poll. An unfinished answer that
        comes back early is followed by a pause of its Retry-After, so the
        loop never spins."""
        deadline = None if timeout is None else time.monotonic() + timeout
        longest = max(1, min(poll_wait, MAX_POLL_WAIT))
        while True:
            wait = longest
            if deadline is not None:
                wait = max(1, min(wait, int(deadline - time.monotonic()) + 1))
            asked = time.monotonic()
            job, headers = self._get(job_id, wait)
            if progress is not None:
                progress(job)
            if job.finished or (deadline is not None and time.monotonic() >= deadline):
                return job
            if time.monotonic() - asked >= wait / 2:
                continue
            try:
                pause = float(int(headers.get("retry-after", "1")))
            except ValueError:
                pause = 1.0
            if deadline is not None:
                pause = min(pause, max(0.0, deadline - time.monotonic()))
            time.sleep(pause)

    def cancel(self, job_id: str) -> Job:
        """Cancel a queued or processing job, or delete a finished job's
        result now; returns the job as it then stands."""
        r = self._client._transport.request("DELETE", "/v1/jobs/" + _seg(job_id))
        return Job(self._client, r.data)


def _seg(s: str) -> str:
    from urllib.parse import quote
    return quote(s, safe="")
