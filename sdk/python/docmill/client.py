"""The docmill client: process calls and pipelines, the catalogue, the
account; jobs and webhooks under ``client.jobs`` and ``client.webhooks``."""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union
from urllib.parse import quote

from ._multipart import FileInput, Form, field_list
from ._transport import Retry, Transport, new_idempotency_key
from .errors import JobFailedError
from .jobs import Job, Jobs
from .webhooks import Webhooks


class Progress:
    """What a process call is doing: ``stage`` "upload" with ``sent`` and
    ``total`` bytes of the files (total None when a file's size is
    unknown), or "status" with the ``job`` as last seen (queued,
    processing, done...)."""

    def __init__(self, stage: str, sent: int = 0, total: Optional[int] = None, job: Optional[Job] = None) -> None:
        self.stage = stage
        self.sent = sent
        self.total = total
        self.job = job

    def __repr__(self) -> str:
        if self.job is not None:
            return f"Progress(status, {self.job.status})"
        return f"Progress(upload, {self.sent}/{self.total})"


ProgressCallback = Callable[[Progress], None]


class Client:
    """A client of one docmill server with one API key.

    Every call retries as ``retry`` says (Retry: five attempts, waits of
    up to a minute); ``timeout`` bounds each socket operation in seconds.
    Each call opens a connection of its own, so threads may share a client.
    """

    def __init__(self, url: str, key: str, *, retry: Optional[Retry] = None, timeout: float = 330.0) -> None:
        self._transport = Transport(url, key, retry if retry is not None else Retry(), timeout)
        self.jobs = Jobs(self)
        self.webhooks = Webhooks(self)

    @property
    def url(self) -> str:
        return self._transport.url

    def tools(self) -> List[Dict[str, Any]]:
        """The tool catalogue (GET /v1/tools): each tool's slug, accepted
        types, file counts, params and availability."""
        return list(self._transport.request("GET", "/v1/tools").data.get("tools", []))

    def tool(self, slug: str) -> Dict[str, Any]:
        data: Dict[str, Any] = self._transport.request("GET", "/v1/tools/" + quote(slug, safe="")).data
        return data

    def account(self) -> Dict[str, Any]:
        """The caller's plan, limits and this month's usage."""
        data: Dict[str, Any] = self._transport.request("GET", "/v1/account").data
        return data

    def process(self, tool: str, files: Union[FileInput, Sequence[FileInput]] = (), params: Optional[Mapping[str, Any]] = None, *,
                file_url: Union[str, Sequence[str], None] = None, export_url: Optional[str] = None,
                keep_result: Optional[bool] = None, wait: Union[bool, int] = True,
                timeout: Optional[float] = None, idempotency_key: Optional[str] = None,
                progress: Optional[ProgressCallback] = None) -> Job:
        """Run tool on files (paths or binary file objects, streamed from
        disk as they are sent) with its params, and return the job.

        file_url fields (one URL or several) are inputs the server fetches,
        sent after the files; export_url a presigned PUT URL the result is
        sent to once the job is done (keep_result=False: docmill's copy is
        then deleted). wait=True waits for the job to finish (long polls,
        within timeout seconds) and raises JobFailedError if it failed or
        was canceled; wait=False asks for an answer at once (``Prefer:
        respond-async``); a number N asks the server to hold its answer up
        to N seconds (``Prefer: wait=N``, at most 300); either returns the
        job as it then stands. One Idempotency-Key (idempotency_key, or a
        new one) is sent with every attempt of the call.
        """
        urls = [file_url] if isinstance(file_url, str) else list(file_url or [])
        extra = [("file_url", u) for u in urls]
        if export_url is not None:
            extra.append(("export_url", export_url))
        if keep_result is not None:
            extra.append(("keep_result", "true" if keep_result else "false"))
        form = Form(field_list(params, extra), files)
        return self._submit(tool, form, wait, timeout, idempotency_key, progress)

    def pipeline(self, steps: Sequence[Mapping[str, Any]], files: Union[FileInput, Sequence[FileInput]] = (), *,
                 file_url: Union[str, Sequence[str], None] = None, export_url: Optional[str] = None,
                 wait: Union[bool, int] = True, timeout: Optional[float] = None,
                 idempotency_key: Optional[str] = None, progress: Optional[ProgressCallback] = None) -> Job:
        """Run several tools in a row on one job: steps are
        ``{"tool": slug, "params": {...}}``, the files go to the first step
        and the result is the last step's. steps are sent first, so a bad
        one is refused before any file is uploaded. Otherwise as process."""
        fields = [("steps", json.dumps([dict(s) for s in steps]))]
        urls = [file_url] if isinstance(file_url, str) else list(file_url or [])
        fields += [("file_url", u) for u in urls]
        if export_url is not None:
            fields.append(("export_url", export_url))
        return self._submit("pipeline", Form(fields, files), wait, timeout, idempotency_key, progress)

    def _submit(self, tool: str, form: Form, wait: Union[bool, int], timeout: Optional[float],
                idempotency_key: Optional[str], progress: Optional[ProgressCallback]) -> Job:
        headers = {"Idempotency-Key": idempotency_key or new_idempotency_key()}
        if wait is False:
            headers["Prefer"] = "respond-async"
        elif wait is not True:
            headers["Prefer"] = f"wait={int(wait)}"
        upload = None
        if progress is not None:
            report = progress

            def upload(sent: int, total: Optional[int]) -> None:
                report(Progress("upload", sent, total))
        r = self._transport.request("POST", "/v1/" + quote(tool, safe="") + "/process",
                                    form=form, headers=headers, progress=upload)
        job = Job(self, r.data)
        if progress is not None:
            progress(Progress("status", job=job))
        if wait is not True:
            return job
        if not job.finished:
            on_poll: Optional[Callable[[Job], None]] = None
            if progress is not None:
                report_status = progress

                def on_poll(j: Job) -> None:
                    report_status(Progress("status", job=j))
            job = self.jobs.wait(job.id, timeout=timeout, progress=on_poll)
        if job.status in ("failed", "canceled"):
            raise JobFailedError(job)
        return job

    def download(self, url: str, path: Union[str, "os.PathLike[str]"]) -> str:
        """Save a result link (a job's ``result.url``) to path, streamed."""
        target = os.fspath(path)
        with open(target, "wb") as out:
            self._transport.download(url, out)
        return target
