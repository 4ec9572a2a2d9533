"""Exceptions of the docmill SDK."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional


class DocmillError(Exception):
    """Base class of every error the SDK raises itself."""


class FieldError:
    """One field at fault: ``errors[]`` of a problem or a failed job."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message

    def __repr__(self) -> str:
        return f"FieldError({self.field!r}, {self.message!r})"


def field_errors(raw: Any) -> List[FieldError]:
    if not isinstance(raw, list):
        return []
    return [FieldError(str(e.get("field", "")), str(e.get("message", ""))) for e in raw if isinstance(e, dict)]


class APIError(DocmillError):
    """An error answer of the server (RFC 9457 problem+json).

    ``code`` is the machine code to switch on (``rate_limited``,
    ``invalid_parameter``, ...), ``status`` the HTTP status and
    ``request_id`` the id the server logged the request under (its
    ``X-Request-Id``).
    """

    def __init__(self, status: int, body: Mapping[str, Any], headers: Mapping[str, str], text: str = "") -> None:
        self.status = status
        self.code: str = str(body.get("code", ""))
        self.title: str = str(body.get("title", ""))
        self.detail: str = str(body.get("detail", "") or text)
        self.type: str = str(body.get("type", ""))
        self.request_id: str = str(body.get("request_id", "") or headers.get("x-request-id", ""))
        self.job_id: Optional[str] = body.get("job_id")
        self.errors: List[FieldError] = field_errors(body.get("errors"))
        self.headers: Dict[str, str] = dict(headers)
        self.retry_after: Optional[float] = retry_after(headers)
        label = self.code or self.title or "error"
        super().__init__(f"{status} {label}: {self.detail} (request {self.request_id or 'unknown'})")


class JobFailedError(DocmillError):
    """A job that ended ``failed`` (or ``canceled``) while the SDK waited
    for it; ``code`` and ``message`` are the job record's ``error``."""

    def __init__(self, job: Any) -> None:
        self.job = job
        err: Mapping[str, Any] = job.raw.get("error") or {}
        self.job_id: str = job.id
        self.code: str = str(err.get("code", job.status))
        self.message: str = str(err.get("message", f"the job was {job.status}"))
        self.errors: List[FieldError] = field_errors(err.get("errors"))
        super().__init__(f"job {self.job_id} {job.status}: {self.code}: {self.message}")


class WebhookVerificationError(DocmillError):
    """A webhook delivery whose headers or signature do not verify."""


def retry_after(headers: Mapping[str, str]) -> Optional[float]:
    """The Retry-After header in seconds (whole seconds: the server's form)."""
    value = headers.get("retry-after", "")
    try:
        seconds = float(int(value))
    except ValueError:
        return None
    return seconds if seconds >= 0 else None
