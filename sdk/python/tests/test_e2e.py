"""End-to-end tests of the SDK against a real server: DOCMILL_URL and
DOCMILL_KEY (a key of a custom-plan account). TestPythonSDK in
cmd/docmill starts the server, makes the tools' inputs
(DOCMILL_SDK_SAMPLES) and the flaky proxy (DOCMILL_PROXY_URL); a test
whose part is missing skips."""

import http.server
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request
import zipfile
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Tuple

import wheel_backend
from docmill import APIError, Client, JobFailedError, Retry, RetryEvent, verify

URL = os.environ.get("DOCMILL_URL", "")
KEY = os.environ.get("DOCMILL_KEY", "")
# As toolstest's: CI set to anything but a false value.
UNDER_CI = os.environ.get("CI", "") not in ("", "0", "f", "F", "false", "False", "FALSE")
MB = 1 << 20


# Uploads argv[3] to rotate-pdf (202 at once) and prints the job's
# input_size, the progress stages seen, the upload's seconds and the
# process's peak RSS in bytes.
UPLOAD_SCRIPT = """
import json, resource, sys, time
from docmill import Client
seen = []
start = time.monotonic()
job = Client(sys.argv[1], sys.argv[2]).process("rotate-pdf", files=[sys.argv[3]], wait=False,
    progress=lambda p: seen.append(p) if p.stage == "status" or p.sent == p.total else None)
print(json.dumps({"job_id": job.id, "input_size": job.meta.get("input_size"), "seconds": time.monotonic() - start,
    "stages": [p.stage for p in seen], "total": seen[0].total,
    "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def tmpdir() -> str:
    d = tempfile.mkdtemp(dir=os.environ.get("DOCMILL_SDK_TMP") or None)
    return d


class Receiver(http.server.ThreadingHTTPServer):
    """A local HTTP server for the tests: serves files for file_url,
    takes PUTs for export_url and POSTs for webhooks, into ``got``."""

    def __init__(self, files: Dict[str, bytes]) -> None:
        self.files = files
        self.got: "queue.Queue[Tuple[str, str, Dict[str, str], bytes]]" = queue.Queue()
        super().__init__(("127.0.0.1", 0), ReceiverHandler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.shutdown()
        self.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class ReceiverHandler(http.server.BaseHTTPRequestHandler):
    server: Receiver

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = self.server.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/pdf")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def take(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.got.put((self.command, self.path, {k: v for k, v in self.headers.items()}, body))
        self.send_response(200 if self.command == "PUT" else 204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_PUT = take
    do_POST = take


@unittest.skipUnless(URL and KEY, "DOCMILL_URL and DOCMILL_KEY name a server and a key")
class E2ETest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = Client(URL, KEY)
        self.dir = tmpdir()
        self.addCleanup(shutil.rmtree, self.dir, True)

    def pdf(self) -> str:
        """A small PDF of the samples (rotate-pdf's)."""
        samples = os.environ.get("DOCMILL_SDK_SAMPLES")
        if not samples:
            self.skipTest("DOCMILL_SDK_SAMPLES unset")
        with open(samples) as f:
            return str(json.load(f)["rotate-pdf"]["files"][0])

    def used(self) -> int:
        return int(self.client.account()["usage"]["operations_used"])

    def test_every_tool(self) -> None:
        """Every tool of the catalogue once, submitted at once (202) and
        waited for with long polls, its result downloaded."""
        samples_path = os.environ.get("DOCMILL_SDK_SAMPLES")
        if not samples_path:
            self.skipTest("DOCMILL_SDK_SAMPLES unset")
        with open(samples_path) as f:
            samples: Dict[str, Dict[str, Any]] = json.load(f)
        catalogue = self.client.tools()
        self.assertGreater(len(catalogue), 1)
        runnable: List[Dict[str, Any]] = []
        for tool in catalogue:
            slug = tool["slug"]
            with self.subTest(slug):
                if not tool["available"]:
                    msg = f"{slug}: engine unavailable on this server"
                    if UNDER_CI:
                        self.fail(msg)
                    self.skipTest(msg)
                sample = samples.get(slug)
                if sample is None or (tool["min_files"] > 0 and not sample.get("files")):
                    self.fail(f"{slug}: no generated input of any of {tool['accepts']}")
                runnable.append(tool)

        def run(tool: Dict[str, Any]) -> Tuple[str, Any]:
            sample = samples[tool["slug"]]
            params = dict(sample.get("params") or {})
            try:
                if tool["slug"] == "pipeline":
                    job = self.client.pipeline(json.loads(params.pop("steps")), files=sample.get("files") or [], wait=False)
                else:
                    job = self.client.process(tool["slug"], files=sample.get("files") or [], params=params, wait=False)
                statuses: List[str] = []
                job = self.client.jobs.wait(job.id, timeout=240, progress=lambda j: statuses.append(j.status))
                if job.status != "done":
                    return tool["slug"], f"{job.status}: {job.error_code}: {job.error_message}"
                out = job.download(os.path.join(self.dir, tool["slug"] + "-" + (job.result.filename if job.result else "")))
                return tool["slug"], (job, os.path.getsize(out), statuses)
            except Exception as e:  # reported per tool below
                return tool["slug"], f"{type(e).__name__}: {e}"

        start = time.monotonic()
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(run, runnable))
        for slug, got in results:
            with self.subTest(slug):
                if isinstance(got, str):
                    self.fail(got)
                job, size, statuses = got
                self.assertEqual(job.tool, slug)
                self.assertIsNotNone(job.result)
                self.assertEqual(size, job.result.size, "downloaded bytes")
                self.assertGreater(size, 0)
                self.assertTrue(statuses and statuses[-1] == "done", statuses)
        print(f"\n{len(results)} tools through the SDK in {time.monotonic() - start:.1f} s", file=sys.stderr)

    def test_large_upload_streamed(self) -> None:
        """500 MB from a sparse file, streamed by a Python process of its
        own (UPLOAD_SCRIPT), whose peak RSS stays under 100 MB."""
        path = os.path.join(self.dir, "huge.pdf")
        with open(path, "wb") as f:
            f.write(b"%PDF-1.7\n")
            f.truncate(500 * MB)
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        run = subprocess.run([sys.executable, "-c", UPLOAD_SCRIPT, URL, KEY, path], cwd=here,
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(run.returncode, 0, run.stderr)
        got = json.loads(run.stdout)
        self.assertEqual(got["input_size"], 500 * MB)
        self.assertEqual(got["stages"], ["upload", "status"])
        self.assertEqual(got["total"], 500 * MB)
        self.assertLess(got["peak_rss"], 100 * MB, f"peak RSS {got['peak_rss'] / MB:.0f} MB")
        print(f"\n500 MB upload: {500 / got['seconds']:.0f} MB/s, the uploading process's peak RSS "
              f"{got['peak_rss'] / MB:.0f} MB (target < 100 MB)", file=sys.stderr)
        canceled = self.client.jobs.cancel(got["job_id"])
        self.assertIn(canceled.status, ("canceled", "failed", "done"))
        self.assertTrue(self.client.jobs.wait(got["job_id"], timeout=60).finished)

    def test_retry_is_one_charge(self) -> None:
        """Through a proxy that loses the first attempt's answer and
        answers the second 503: three attempts, one job, one charge; and a
        429 retried after its Retry-After."""
        proxy = os.environ.get("DOCMILL_PROXY_URL")
        if not proxy:
            self.skipTest("DOCMILL_PROXY_URL unset")
        pdf = self.pdf()
        retries: List[RetryEvent] = []
        flaky = Client(proxy, KEY, retry=Retry(max_attempts=4, max_wait=5, on_retry=retries.append))
        before = self.used()
        with open(pdf, "rb") as f:  # a file object: rewound for each attempt
            job = flaky.process("rotate-pdf", files=[f], params={"angle": 90})
        self.assertEqual(job.status, "done")
        self.assertEqual(len(retries), 2, retries)
        self.assertNotIsInstance(retries[0].error, APIError, "the dropped connection is a network error")
        self.assertEqual(getattr(retries[1].error, "status", None), 503)
        retries.clear()
        flaky.account()  # answered 429 rate_limited with Retry-After: 1 once
        self.assertEqual([(getattr(r.error, "code", None), r.wait) for r in retries], [("rate_limited", 1.0)])
        self.assertEqual(self.used(), before + 1, "one operation charged for the retried call")
        self.assertEqual([j.id for j in self.client.jobs.list(tool="rotate-pdf", limit=100).jobs].count(job.id), 1)

    def test_webhook_verified(self) -> None:
        receiver = Receiver({})
        self.addCleanup(receiver.close)
        hook = self.client.webhooks.create(receiver.url + "/hook", events=["job.done"])
        self.assertTrue(hook.secret and hook.secret.startswith("whsec_"))
        self.assertIn(hook.id, [w.id for w in self.client.webhooks.list()])
        job = self.client.process("rotate-pdf", files=[self.pdf()], params={"angle": 180})
        deadline = time.monotonic() + 30
        while True:
            method, path, headers, body = receiver.got.get(timeout=max(0.1, deadline - time.monotonic()))
            event = verify(body, headers, hook.secret or "")
            if event["data"]["job_id"] == job.id:
                break
        self.assertEqual((method, path, event["type"]), ("POST", "/hook", "job.done"))
        with self.assertRaises(Exception):
            verify(body + b" ", headers, hook.secret or "")
        self.client.webhooks.delete(hook.id)
        self.assertNotIn(hook.id, [w.id for w in self.client.webhooks.list()])
        with self.assertRaises(APIError) as e:
            self.client.webhooks.get(hook.id)
        self.assertEqual((e.exception.status, e.exception.code), (404, "not_found"))

    def test_file_url_and_export_url(self) -> None:
        with open(self.pdf(), "rb") as f:
            pdf = f.read()
        receiver = Receiver({"/in/report.pdf": pdf})
        self.addCleanup(receiver.close)
        job = self.client.process("compress-pdf", file_url=receiver.url + "/in/report.pdf",
                                  export_url=receiver.url + "/out/report.pdf?signature=x")
        self.assertEqual(job.status, "done")
        deadline = time.monotonic() + 30
        while job.result and job.result.export_status == "pending" and time.monotonic() < deadline:
            time.sleep(0.1)
            job = job.refresh()
        self.assertIsNotNone(job.result)
        self.assertEqual(job.result.export_status if job.result else None, "done")
        method, path, _, body = receiver.got.get(timeout=5)
        self.assertEqual((method, path), ("PUT", "/out/report.pdf?signature=x"))
        self.assertTrue(body.startswith(b"%PDF-"))

    def test_errors(self) -> None:
        with self.assertRaises(APIError) as e:
            self.client.process("rotate-pdf", files=[self.pdf()], params={"angle": 45})
        err = e.exception
        self.assertEqual((err.status, err.code), (400, "invalid_parameter"))
        self.assertTrue(err.request_id)
        self.assertEqual([f.field for f in err.errors], ["angle"])
        with self.assertRaises(APIError) as e:
            self.client.process("no-such-tool", files=[self.pdf()])
        self.assertEqual((e.exception.status, e.exception.code), (404, "unknown_tool"))
        with self.assertRaises(APIError) as e:
            Client(URL, "dm_live_" + "x" * 32).account()
        self.assertEqual((e.exception.status, e.exception.code), (401, "unauthorized"))
        bad = os.path.join(self.dir, "broken.pdf")
        with open(bad, "wb") as f:
            f.write(b"%PDF-1.7\nnot a PDF at all\n")
        with self.assertRaises((APIError, JobFailedError)) as e:
            self.client.process("compress-pdf", files=[bad])
        self.assertEqual(getattr(e.exception, "code"), "invalid_document")

    def test_jobs(self) -> None:
        job = self.client.process("merge-pdf", files=[self.pdf(), self.pdf()], wait=False)
        self.assertIn(job.status, ("queued", "processing", "done"))
        done = self.client.jobs.wait(job.id, timeout=60)
        self.assertEqual(done.status, "done")
        self.assertEqual(self.client.jobs.get(job.id, wait=5).status, "done")
        page = self.client.jobs.list(status="done", tool="merge-pdf", limit=1)
        self.assertEqual(len(page.jobs), 1)
        self.assertIn(job.id, [j.id for j in self.client.jobs.iter(tool="merge-pdf", limit=1)])
        self.assertEqual(self.client.jobs.cancel(job.id).status, "done")
        gone = self.client.jobs.get(job.id)
        self.assertTrue(gone.result is None or gone.result.url is None)
        piped = self.client.pipeline([{"tool": "rotate-pdf", "params": {"angle": 90}}, {"tool": "compress-pdf"}],
                                     files=[self.pdf()], wait=60)
        if not piped.finished:  # Prefer: wait=60 ran out on a busy server
            piped = piped.wait(timeout=120)
        self.assertEqual((piped.tool, piped.status), ("pipeline", "done"))
        self.assertEqual([s["tool"] for s in piped.meta["steps"]], ["rotate-pdf", "compress-pdf"])

    def test_wheel_is_the_servers_version(self) -> None:
        with urllib.request.urlopen(URL + "/healthz") as r:
            server = json.load(r)["version"]
        out = self.dir
        os.environ["DOCMILL_VERSION"] = server
        try:
            name = wheel_backend.build_wheel(out)
        finally:
            del os.environ["DOCMILL_VERSION"]
        version = wheel_backend.pep440(server)
        self.assertEqual(name, f"docmill-{version}-py3-none-any.whl")
        with zipfile.ZipFile(os.path.join(out, name)) as z:
            meta = z.read(f"docmill-{version}.dist-info/METADATA").decode()
            self.assertIn(f"\nVersion: {version}\n", meta)
            self.assertIn(f"SERVER_VERSION = {server!r}", z.read("docmill/_version.py").decode())
            self.assertIn(b"docmill/py.typed", z.read(f"docmill-{version}.dist-info/RECORD"))


if __name__ == "__main__":
    unittest.main()
