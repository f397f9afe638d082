"""The console in a real browser (Debian's chromium through pytest-playwright) against `mcv serve`:
log in, run a pipeline from the pipeline page with an uploaded image, watch a job live, download its
output, see a failed task's code and message, retry it; the key never shows in a URL or the log."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from console_helpers import Served
from playwright.sync_api import Page, expect

from seaweed import SeaweedS3

pytestmark = pytest.mark.slow

PIPELINE = """version: 1
name: web-image
params:
  photo: {type: string, description: the photo, example: photo.jpg}
  width: {type: integer, minimum: 16, default: 320}
tasks:
  original:
    operation: import/upload
    upload_from: "{{ params.photo }}"
  web:
    operation: convert
    input: original
    output_format: webp
    width: "{{ params.width }}"
  publish:
    operation: export/url
    input: web
"""


@dataclass
class Seen:
    """Every URL the page requested (what reached the network) and every address it showed."""

    requests: list[str] = field(default_factory=list)
    addresses: list[str] = field(default_factory=list)


@pytest.fixture
def seen(page: Page) -> Seen:
    seen = Seen()
    page.on("request", lambda request: seen.requests.append(request.url))
    page.on("framenavigated", lambda frame: seen.addresses.append(frame.url))
    return seen


def api(served: Served) -> httpx.Client:
    headers = {"Authorization": f"Bearer {served.api_key}"}
    return httpx.Client(base_url=served.base_url, headers=headers, timeout=30)


def log_in_with_the_form(page: Page, served: Served) -> None:
    page.goto(served.console())
    page.get_by_label("API key").fill(served.api_key)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Jobs")).to_be_visible()


def assert_key_nowhere(served: Served, seen: Seen, page: Page, typed: str | None = None) -> None:
    """The key is in no request, no address the page moved to (but the one the test typed in), and
    not in the service's log."""
    assert seen.requests, "the page made requests"
    assert not [u for u in seen.requests if served.api_key in u]
    assert not [u for u in seen.addresses if served.api_key in u and u != typed]
    assert served.api_key not in page.url
    log = "".join(served.log)
    assert '"event": "request"' in log or '"event":"request"' in log, "the service logs requests"
    assert served.api_key not in log


def test_run_a_pipeline_from_the_pipeline_page_and_download_its_output(
    page: Page, served: Served, seen: Seen, photo: Path
) -> None:
    log_in_with_the_form(page, served)
    page.get_by_role("link", name="Pipeline").click()
    editor = page.get_by_label("Pipeline YAML")
    editor.fill(PIPELINE.replace("input: original", "input: orignal"))
    # The checker of `mcv validate` answers as the user types: line 12, column 12 is `orignal`.
    expect(page.locator("#diagnostics")).to_contain_text("12:12 error[graph-dangling-input]")
    editor.fill(PIPELINE)
    expect(page.locator("#verdict")).to_have_text("Valid.")
    expect(page.locator("#job-body")).to_contain_text('"output_format": "webp"')
    expect(page.locator(".graph .node")).to_have_count(3)
    page.get_by_label("photo (file to upload)").set_input_files(photo)
    page.get_by_label("width").fill("200")
    page.get_by_role("button", name="Run").click()
    page.wait_for_url("**/console/#/job/*")
    job_id = page.url.rsplit("/", 1)[1]
    publish = page.locator("tr[data-task=publish]")
    expect(publish).to_have_attribute("data-status", "finished", timeout=30_000)
    with page.expect_download() as download:
        publish.get_by_role("link", name="photo.webp").click()
    content = Path(download.value.path()).read_bytes()
    assert content[:4] == b"RIFF"
    assert content[8:12] == b"WEBP"
    with api(served) as client:
        job = client.get(f"/v2/jobs/{job_id}").json()["data"]
    web = next(t for t in job["tasks"] if t["name"] == "web")
    assert job["status"] == "finished"
    assert web["result"]["files"][0]["filename"] == "photo.webp"
    assert_key_nowhere(served, seen, page)


def test_job_page_follows_the_job_live_without_reloading(
    page: Page, served: Served, seen: Seen, photo: Path
) -> None:
    body = {
        "tag": "live-test",
        "tasks": {
            "in": {"operation": "import/upload"},
            "small": {"operation": "convert", "input": "in", "output_format": "png", "width": 64},
            "out": {"operation": "export/url", "input": "small"},
        },
    }
    typed = served.console(f"#key={served.api_key}")
    page.goto(typed)
    expect(page.get_by_role("heading", name="Jobs")).to_be_visible()
    assert served.api_key not in page.url  # the address bar is cleared of the key at once
    expect(page.locator("#live")).to_have_text("● live")
    with api(served) as client:  # made after the list was shown: it comes in through the stream
        job = client.post("/v2/jobs", json=body).json()["data"]
    row = page.locator(f"tr[data-job='{job['id']}']")
    expect(row).to_contain_text("3 waiting")
    expect(page.locator("tbody tr").first).to_have_attribute("data-job", job["id"])  # newest first
    page.get_by_label("Tag").fill("no-such-tag")
    expect(row).to_have_count(0)
    page.get_by_label("Tag").fill("live-test")
    row.get_by_role("link").click()
    expect(page.locator("tr[data-task=in]")).to_have_attribute("data-status", "waiting")
    expect(page.locator("#live")).to_have_text("● live")
    page.evaluate("window.notReloaded = true")
    form = job["tasks"][0]["result"]["form"]
    with photo.open("rb") as handle:
        upload = httpx.post(form["url"], data=form["parameters"], files={"file": ("photo.jpg", handle)})
    assert upload.status_code == 201
    # The stream brings the changes: every task turns finished on the page as it is.
    for name in ("in", "small", "out"):
        row = page.locator(f"tr[data-task={name}]")
        expect(row).to_have_attribute("data-status", "finished", timeout=20_000)
    expect(page.locator(".graph .node.status-finished")).to_have_count(3)
    expect(page.locator(".summary")).to_contain_text("finished")
    assert page.evaluate("window.notReloaded") is True
    assert_key_nowhere(served, seen, page, typed)


def test_older_jobs_follow_the_next_link_and_stay_put_while_new_jobs_arrive(
    page: Page, served: Served, seen: Seen
) -> None:
    raw = {"operation": "import/raw", "file": "x", "filename": "x.txt"}
    body = {"tag": "paging-test", "tasks": {"in": raw}}
    with api(served) as client:
        made = [client.post("/v2/jobs", json=body).json()["data"]["id"] for _ in range(53)]
        client.post("/v2/jobs", json={**body, "tag": "other"})  # the newest of all, but not of the tag
    log_in_with_the_form(page, served)
    page.get_by_label("Tag").fill("paging-test")
    rows = page.locator("tbody tr[data-job]")
    expect(rows.first).to_have_attribute("data-job", made[-1])  # the tag's list, newest first
    expect(rows).to_have_count(50)  # the console's pages hold 50
    page.get_by_role("button", name="Older →").click()
    expect(rows).to_have_count(3)
    expect(rows.first).to_have_attribute("data-job", made[2])
    expect(page.locator(".pages .note")).to_have_text("page 2")
    older = [url for url in seen.requests if "/v2/jobs?" in url][-1]
    assert "seq_below=" in older  # read off the index from where page 1 ended, not by offset
    # A job made now reaches the page through the change stream, which reads the page again: the
    # older page keeps its own three jobs instead of taking the one page 1 pushes over.
    with page.expect_request(lambda request: request.url == older), api(served) as client:
        newest = client.post("/v2/jobs", json=body).json()["data"]["id"]
    expect(rows).to_have_count(3)
    assert [rows.nth(i).get_attribute("data-job") for i in range(3)] == made[2::-1]
    page.get_by_role("button", name="← Newer").click()
    expect(rows.first).to_have_attribute("data-job", newest)
    expect(page.locator(".pages .note")).to_have_text("page 1")
    expect(page.get_by_role("button", name="← Newer")).to_be_disabled()
    assert_key_nowhere(served, seen, page)


@pytest.fixture
def flaky_origin(photo: Path) -> Iterator[str]:
    """A loopback file server that answers 404 the first time and the photo after."""
    calls: list[str] = []
    content = photo.read_bytes()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            calls.append(self.path)
            if len(calls) == 1:
                self.send_error(404, "not there yet")
                return
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/photo.jpg"
    server.shutdown()
    server.server_close()


def test_a_failed_task_shows_its_code_and_message_and_retry_runs_it_again(
    page: Page, served: Served, seen: Seen, flaky_origin: str
) -> None:
    body = {
        "tasks": {
            "fetch": {"operation": "import/url", "url": flaky_origin},
            "out": {"operation": "export/url", "input": "fetch"},
        }
    }
    with api(served) as client:
        job_id = client.post("/v2/jobs", json=body).json()["data"]["id"]
        client.get(f"/v2/jobs/{job_id}/wait")
        failed = {t["name"]: t for t in client.get(f"/v2/jobs/{job_id}").json()["data"]["tasks"]}
    assert failed["fetch"]["status"] == "error"
    log_in_with_the_form(page, served)
    page.goto(served.console(f"#/job/{job_id}"))
    fetch = page.locator("tr[data-task=fetch]")
    expect(fetch).to_have_attribute("data-status", "error")
    expect(fetch.locator(".code")).to_have_text(failed["fetch"]["code"])
    expect(fetch.locator(".message")).to_have_text(failed["fetch"]["message"])
    expect(page.locator("tr[data-task=out] .code")).to_have_text("INPUT_TASK_FAILED")
    page.locator(".graph .node", has_text="fetch").focus()  # a node of the graph, by keyboard
    page.keyboard.press("Enter")
    expect(fetch).to_be_focused()
    fetch.get_by_role("button", name="Retry fetch").click()
    retried = page.locator("tr[data-task=fetch]")
    expect(retried).to_have_count(2)  # the failed attempt stays listed, marked as retried
    expect(retried.first).to_contain_text("(retried)")
    expect(retried.last).to_have_attribute("data-status", "finished", timeout=20_000)
    expect(page.locator(".graph .node.status-finished", has_text="fetch")).to_have_count(1)
    assert_key_nowhere(served, seen, page)


def test_an_export_to_a_bucket_shows_where_each_file_was_stored(
    page: Page, served: Served, seen: Seen, seaweed: SeaweedS3
) -> None:
    prefix = f"console-{threading.get_ident()}/"
    login = {"endpoint": seaweed.endpoint, "region": "us-east-1", "bucket": seaweed.bucket,
             "access_key_id": seaweed.access_key, "secret_access_key": seaweed.secret_key}  # fmt: skip
    body = {
        "tasks": {
            "note": {"operation": "import/raw", "file": "hello", "filename": "note.txt"},
            "store": {"operation": "export/s3", **login, "input": "note", "key_prefix": prefix},
        }
    }
    with api(served) as client:
        job_id = client.post("/v2/jobs", json=body).json()["data"]["id"]
        client.get(f"/v2/jobs/{job_id}/wait")
    log_in_with_the_form(page, served)
    page.goto(served.console(f"#/job/{job_id}"))
    store = page.locator("tr[data-task=store]")
    expect(store).to_have_attribute("data-status", "finished")
    expect(store.locator(".files.stored code")).to_have_text(f"s3://{seaweed.bucket}/{prefix}note.txt")
    assert seaweed.secret_key not in page.content()
    assert_key_nowhere(served, seen, page)


def test_cancel_a_task_then_delete_the_job(page: Page, served: Served, seen: Seen) -> None:
    with api(served) as client:
        created = client.post("/v2/jobs", json={"tasks": {"in": {"operation": "import/upload"}}})
        job_id = created.json()["data"]["id"]
    log_in_with_the_form(page, served)
    page.goto(served.console(f"#/job/{job_id}"))
    task = page.locator("tr[data-task=in]")
    expect(task).to_have_attribute("data-status", "waiting")
    task.get_by_role("button", name="Cancel in").click()
    expect(task).to_have_attribute("data-status", "error")
    expect(task.locator(".code")).to_have_text("CANCELLED")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete job").click()
    expect(page.get_by_role("heading", name="Jobs")).to_be_visible()
    expect(page.locator(f"tr[data-job='{job_id}']")).to_have_count(0)
    with api(served) as client:
        assert client.get(f"/v2/jobs/{job_id}").status_code == 404
    assert_key_nowhere(served, seen, page)


def test_account_page_and_logout_forgets_the_key(page: Page, served: Served, seen: Seen) -> None:
    page.goto(served.console())
    page.get_by_label("API key").fill("not-a-key-of-this-service")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#login-error")).to_have_text("The service refused the key: log in again.")
    assert page.evaluate("sessionStorage.length") == 0
    log_in_with_the_form(page, served)
    page.get_by_role("link", name="Skip to content").focus()  # the first stop of the page
    page.keyboard.press("Enter")  # moves the focus to the content and leaves the address alone
    expect(page.locator("main")).to_be_focused()
    assert page.url.endswith("/console/#/jobs")
    expect(page.get_by_role("heading", name="Jobs")).to_be_visible()
    # By keyboard alone: from the page's content back over "Log out" to the "Account" section link.
    page.keyboard.press("Shift+Tab")
    expect(page.get_by_role("button", name="Log out")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(page.get_by_role("link", name="Account")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#scopes")).to_contain_text("webhook.write")
    expect(page.locator("#credits")).not_to_be_empty()
    page.get_by_label("Webhook URL").fill("https://example.invalid/hook")
    page.get_by_role("button", name="Add webhook").click()
    expect(page.get_by_role("button", name="Delete webhook https://example.invalid/hook")).to_be_visible()
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_label("API key")).to_be_visible()
    assert page.evaluate("sessionStorage.length") == 0
    page.reload()
    expect(page.get_by_label("API key")).to_be_visible()  # not logged in any more
    records = [json.loads(line) for line in served.log if line.startswith("{")]
    assert any(r.get("route") == "/console/api/key" for r in records)
    assert_key_nowhere(served, seen, page)
