"""docmill: the Python SDK of the docmill document-processing API.

    from docmill import Client
    client = Client("http://localhost:8080", "dm_live_...")
    job = client.process("compress-pdf", files=["report.pdf"], params={"preset": "ebook"})
    job.download("report-small.pdf")

Standard library only. See README.md beside the package.
"""

from ._multipart import FileInput
from ._transport import NO_RETRY, Retry, RetryEvent
from ._version import SERVER_VERSION, __version__
from .client import Client, Progress
from .errors import APIError, DocmillError, FieldError, JobFailedError, WebhookVerificationError
from .jobs import Job, JobPage, Jobs, Result
from .webhooks import Webhook, Webhooks, sign, verify

__all__ = [
    "APIError", "Client", "DocmillError", "FieldError", "FileInput", "Job", "JobFailedError", "JobPage", "Jobs",
    "NO_RETRY", "Progress", "Result", "Retry", "RetryEvent", "SERVER_VERSION", "Webhook", "WebhookVerificationError",
    "Webhooks", "__version__", "sign", "verify",
]
