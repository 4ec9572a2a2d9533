"""Tests of the SDK's parts that need no server: signatures, versions,
the multipart body and the retry rules."""

import base64
import io
import os
import tempfile
import time
import unittest

import wheel_backend
from docmill import APIError, Retry, WebhookVerificationError, sign, verify
from docmill._multipart import Form

SECRET = "whsec_" + base64.b64encode(b"a secret of thirty-two bytes....").decode()


class VerifyTest(unittest.TestCase):
    body = b'{"type": "job.done", "data": {"job_id": "job_1"}}'

    def headers(self, signature: str, ts: int) -> dict:
        return {"Webhook-Id": "msg_1", "Webhook-Timestamp": str(ts), "Webhook-Signature": signature}

    def test_good_signature(self) -> None:
        ts = int(time.time())
        event = verify(self.body, self.headers(sign(self.body, "msg_1", ts, SECRET), ts), SECRET)
        self.assertEqual(event["data"]["job_id"], "job_1")

    def test_one_of_several_signatures(self) -> None:
        ts = int(time.time())
        other = "whsec_" + base64.b64encode(b"the old secret of the rotation..").decode()
        both = sign(self.body, "msg_1", ts, other) + " " + sign(self.body, "msg_1", ts, SECRET)
        verify(self.body, self.headers(both, ts), SECRET)
        verify(self.body, self.headers(both, ts), other)

    def test_refusals(self) -> None:
        ts = int(time.time())
        good = sign(self.body, "msg_1", ts, SECRET)
        cases = {
            "tampered body": (self.body + b" ", self.headers(good, ts)),
            "old timestamp": (self.body, self.headers(sign(self.body, "msg_1", ts - 600, SECRET), ts - 600)),
            "future timestamp": (self.body, self.headers(sign(self.body, "msg_1", ts + 600, SECRET), ts + 600)),
            "other id": (self.body, {**self.headers(good, ts), "Webhook-Id": "msg_2"}),
            "no signature header": (self.body, {"webhook-id": "msg_1", "webhook-timestamp": str(ts)}),
            "v2 only": (self.body, self.headers("v2," + good[3:], ts)),
        }
        for name, (body, headers) in cases.items():
            with self.subTest(name), self.assertRaises(WebhookVerificationError):
                verify(body, headers, SECRET)


class VersionTest(unittest.TestCase):
    def test_pep440(self) -> None:
        for server, want in [("v1.2.3", "1.2.3"), ("v1.2.3-4-gabc1234", "1.2.3.post4+gabc1234"),
                             ("bc8f881", "0+gbc8f881"), ("bc8f881-dirty", "0+gbc8f881.dirty"),
                             ("v2.0.0-dirty", "2.0.0+dirty"), ("devel", "0+devel")]:
            self.assertEqual(wheel_backend.pep440(server), want, server)


class FormTest(unittest.TestCase):
    def test_length_is_the_body(self) -> None:
        with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
            f.write(b"%PDF-1.7\n" + os.urandom(700_000))
            f.flush()
            obj = io.BytesIO(b"x" * 1000)
            obj.seek(10)  # sent from where it stands
            form = Form([("angle", "90"), ("name", 'quote " and \u00e9')], [f.name, obj])
            body = b"".join(form.body())
            self.assertEqual(len(body), form.length())
            self.assertTrue(form.rewindable)
            self.assertEqual(body, b"".join(form.body()), "a second attempt sends the same bytes")
            self.assertIn(b"x" * 990 + b"\r\n", body)
            self.assertNotIn(b"x" * 991, body)

    def test_one_file_alone(self) -> None:
        self.assertEqual([s.name for s in Form([], "README.md").sources], ["README.md"])
        self.assertEqual(len(Form([], io.BytesIO(b"%PDF-1.7\n")).sources), 1)

    def test_unseekable_is_chunked_and_not_rewindable(self) -> None:
        r, w = os.pipe()
        os.write(w, b"%PDF-1.7\n")
        os.close(w)
        with os.fdopen(r, "rb") as pipe:
            form = Form([], [pipe])
            self.assertIsNone(form.length())
            self.assertFalse(form.rewindable)


class RetryTest(unittest.TestCase):
    def problem(self, status: int, code: str = "", retry_after: str = "") -> APIError:
        headers = {"retry-after": retry_after} if retry_after else {}
        return APIError(status, {"code": code}, headers)

    def test_rules(self) -> None:
        r = Retry(max_attempts=3, max_wait=60)
        self.assertEqual(r.wait_after(1, self.problem(429, "rate_limited", "2"), False), 2.0)
        self.assertIsNone(r.wait_after(1, self.problem(429, "quota_exceeded", "86400"), True))
        self.assertIsNotNone(r.wait_after(1, self.problem(503), True))
        self.assertIsNone(r.wait_after(1, self.problem(503), False), "not repeatable")
        self.assertIsNotNone(r.wait_after(1, self.problem(500, "internal"), True))
        self.assertIsNone(r.wait_after(1, self.problem(400, "invalid_parameter"), True))
        self.assertIsNotNone(r.wait_after(2, ConnectionResetError(), True))
        self.assertIsNone(r.wait_after(3, ConnectionResetError(), True), "attempts used up")
        for attempt in range(1, 6):
            self.assertLessEqual(r.backoff(attempt), min(0.5 * 2 ** (attempt - 1), 60))
            self.assertGreaterEqual(r.backoff(attempt), min(0.5 * 2 ** (attempt - 1), 60) / 2)


if __name__ == "__main__":
    unittest.main()
