"""Webhook endpoints of the account, and ``verify`` for the deliveries
they receive (Standard Webhooks signatures)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Union
from urllib.parse import quote

from .errors import WebhookVerificationError

if TYPE_CHECKING:
    from .client import Client

DEFAULT_TOLERANCE = 300.0
"""How far, in seconds, a delivery's timestamp may be from now (either way)."""


class Webhook:
    """A webhook endpoint as the API returns it; ``secret`` is set only in
    the answers of create and rotate_secret."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = dict(raw)
        self.id: str = str(raw.get("id", ""))
        self.url: str = str(raw.get("url", ""))
        self.events: List[str] = list(raw.get("events") or [])
        self.enabled: bool = bool(raw.get("enabled", False))
        self.created_at: str = str(raw.get("created_at", ""))
        self.secret: Optional[str] = raw.get("secret")

    def __repr__(self) -> str:
        return f"Webhook({self.id!r}, url={self.url!r}, enabled={self.enabled})"


class Webhooks:
    """The webhooks API of a client: ``client.webhooks``."""

    def __init__(self, client: "Client") -> None:
        self._client = client

    def create(self, url: str, events: Optional[Sequence[str]] = None) -> Webhook:
        """Register an endpoint for events (job.done, job.failed,
        job.canceled; None: all) and return it with its signing secret,
        shown only this once."""
        body: Dict[str, Any] = {"url": url}
        if events is not None:
            body["events"] = list(events)
        return Webhook(self._client._transport.request("POST", "/v1/webhooks", json_body=body).data)

    def list(self) -> List[Webhook]:
        """The account's endpoints."""
        data = self._client._transport.request("GET", "/v1/webhooks").data
        return [Webhook(w) for w in data.get("webhooks", [])]

    def get(self, webhook_id: str) -> Webhook:
        return Webhook(self._client._transport.request("GET", "/v1/webhooks/" + quote(webhook_id, safe="")).data)

    def delete(self, webhook_id: str) -> None:
        """Remove an endpoint; its pending deliveries are dropped."""
        self._client._transport.request("DELETE", "/v1/webhooks/" + quote(webhook_id, safe=""))

    def rotate_secret(self, webhook_id: str) -> Webhook:
        """A new secret, returned once; the old one signs beside it for 24 hours."""
        path = "/v1/webhooks/" + quote(webhook_id, safe="") + "/rotate-secret"
        return Webhook(self._client._transport.request("POST", path).data)

    def enable(self, webhook_id: str) -> Webhook:
        """Enable a disabled endpoint again."""
        path = "/v1/webhooks/" + quote(webhook_id, safe="") + "/enable"
        return Webhook(self._client._transport.request("POST", path).data)

    def deliveries(self, webhook_id: str) -> List[Dict[str, Any]]:
        """The endpoint's recent delivery attempts, newest first."""
        path = "/v1/webhooks/" + quote(webhook_id, safe="") + "/deliveries"
        return list(self._client._transport.request("GET", path).data.get("deliveries", []))


def _header(headers: Mapping[str, str], name: str) -> str:
    for k, v in headers.items():
        if k.lower() == name:
            return v
    raise WebhookVerificationError(f"missing header {name}")


def _secret_key(secret: str) -> bytes:
    s = secret[len("whsec_"):] if secret.startswith("whsec_") else secret
    try:
        return base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError) as e:
        raise WebhookVerificationError("the secret is not whsec_ and base64") from e


def sign(payload: Union[bytes, str], msg_id: str, timestamp: int, secret: str) -> str:
    """The ``v1,...`` signature of a delivery, as the server computes it:
    base64 of HMAC-SHA256 over ``{id}.{timestamp}.{payload}``, keyed with
    the bytes the secret's base64 (after ``whsec_``) encodes."""
    body = payload.encode() if isinstance(payload, str) else payload
    mac = hmac.new(_secret_key(secret), f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256)
    return "v1," + base64.b64encode(mac.digest()).decode()


def verify(payload: Union[bytes, str], headers: Mapping[str, str], secret: str, *,
           tolerance: float = DEFAULT_TOLERANCE, now: Optional[float] = None) -> Dict[str, Any]:
    """Verify a webhook delivery per Standard Webhooks and return its event
    (the parsed body). payload is the body exactly as received; headers
    its request headers (any case); secret the endpoint's ``whsec_...``.

    Raises WebhookVerificationError when a header is missing, the
    timestamp is further than tolerance seconds from now (a replay), or
    no ``v1`` signature of ``webhook-signature`` (space-separated: two
    during a secret's rotation) matches.
    """
    msg_id = _header(headers, "webhook-id")
    raw_ts = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    try:
        ts = int(raw_ts)
    except ValueError as e:
        raise WebhookVerificationError(f"webhook-timestamp {raw_ts!r} is not a number") from e
    current = time.time() if now is None else now
    if abs(current - ts) > tolerance:
        raise WebhookVerificationError(f"webhook-timestamp {ts} is more than {tolerance:.0f} s from now")
    expected = sign(payload, msg_id, ts, secret).encode()
    for candidate in signatures.split():
        version, _, _ = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(candidate.encode(), expected):
            body = payload.encode() if isinstance(payload, str) else payload
            try:
                event: Dict[str, Any] = json.loads(body)
            except ValueError as e:
                raise WebhookVerificationError("the payload is not JSON") from e
            return event
    raise WebhookVerificationError("no signature matches")
