#!/usr/bin/env python3
"""Make the README's screenshot of the console's job page from a real run.

Starts the local service on a temporary data directory, opens the console in Debian's chromium
(headless), pastes a pipeline into the pipeline page, picks its photo, runs it, waits for every task
to finish on the job page and saves a PNG of it.

    .venv/bin/python scripts/console-screenshot.py --out docs/assets/console-job.png
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from PIL import Image
from playwright.sync_api import expect, sync_playwright

from mcv_pipelines.service.server import LocalService

ROOT = Path(__file__).resolve().parents[1]
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    picture = ROOT / "docs" / "assets" / "console-job.png"
    parser.add_argument("--out", type=Path, default=picture, help="PNG to write")
    parser.add_argument("--pipeline", type=Path, default=ROOT / "pipelines" / "product-images.yaml")
    parser.add_argument("--photo", type=Path, default=ROOT / "pipelines" / "assets" / "photo.jpg")
    parser.add_argument("--width", type=int, default=1180, help="viewport width (default 1180)")
    parser.add_argument("--height", type=int, default=820, help="viewport height (default 820)")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    if not Path(args.chromium).exists():
        where = f"no chromium at {args.chromium}: apt-get install -y chromium, or give --chromium"
        print(where, file=sys.stderr)
        return 2
    with LocalService() as service, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=ARGS)
        page = browser.new_page(viewport={"width": args.width, "height": args.height})
        page.goto(f"{service.base_url}/console/")
        page.get_by_label("API key").fill(service.api_key)
        page.get_by_role("button", name="Log in").click()
        page.get_by_role("link", name="Pipeline").click()
        page.get_by_label("Pipeline YAML").fill(args.pipeline.read_text(encoding="utf-8"))
        expect(page.locator("#verdict")).to_have_text("Valid.")
        page.locator("input[type=file][data-param]").first.set_input_files(args.photo)
        page.get_by_role("button", name="Run").click()
        page.wait_for_url("**/console/#/job/*")
        expect(page.locator(".summary")).to_contain_text("✓ finished", timeout=60_000)
        expect(page.locator("#live")).to_have_text("● live")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(args.out))
        browser.close()
    with Image.open(args.out) as shot:  # a palette of 64 colours keeps the committed PNG small
        small = shot.convert("RGB").quantize(colors=64)
    small.save(args.out, optimize=True)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
