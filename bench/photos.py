"""A folder of photos and a manifest of tiny rows through the whole product, beside the floor.

    .venv/bin/python bench/photos.py [--photos 300] [--rows 400] [--repeat 3] [--team] [--against SRC]
                                     [--work-dir DIR]

Makes its own photos (JPEG, 3000x2000, 6 MP, noise over a gradient so they compress like photos) and,
side by side in one run:

- the floor: Pillow in 2 processes (this machine's cores), draft mode + ``thumbnail`` + webp at
  Pillow's defaults, fit inside 320x320: the conversion alone;
- `mcv batch --concurrency 4` -> `mcv serve --rate-limit 0` (one process, embedded SQLite, files in
  its data directory): import/upload -> thumbnail (webp, 320x320, fit max) -> export/url, downloaded;
  rows packed into jobs as `mcv batch` chooses, then the same with `--rows-per-job 1` (a job a row);
- with --against SRC, the same from another source tree of the package (before a change: the
  ratio between the two is the change's, measured side by side);
- with --team, the team deployment: one `--role api` and two `--role worker` processes on PostgreSQL
  and S3 (SeaweedFS), started as the team tests start them (tests/integration/team/pg_server.py,
  tests/seaweed.py); the workers run 2 tasks each, so the machine's 2 cores are shared as by the one
  `mcv serve` with its 4. The servers' own CPU per photo (PostgreSQL's processes, weed) is printed
  beside it: it is not in the service column, yet the same 2 cores pay it.

Every output is checked: as many files as photos, each a webp of the floor's own size.
Then tiny rows (16x16 PNG -> webp, 400 rows, --concurrency 8) against the same `mcv serve`: rows/s and
CPU ms per row of `mcv batch` (its process, start-up included) and of the service (its process tree,
from /proc) separately. Beside them, the same four HTTP exchanges a tiny row makes, between a bare
Starlette app and the client's HTTP stack with nothing behind them (bench/http_floor.py): the
cost of those exchanges before the product does any work of its own.
Prints one table per round; no assertion on time: the machine is shared, so read the ratios, which
one round measures side by side.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import http_floor
from PIL import Image, ImageFilter

KEY = "sk-bench-photos-4e0a91"
SIDE = 320
MCV = [sys.executable, "-m", "mcv_pipelines"]
PHOTO_PIPELINE = f"""\
version: 1
name: bench-thumbs
params:
  photo: {{type: string}}
job:
  tag: bench-thumbs
tasks:
  source:
    operation: import/upload
    upload_from: "{{{{ params.photo }}}}"
  thumb:
    operation: thumbnail
    input: source
    output_format: webp
    width: {SIDE}
    height: {SIDE}
    fit: max
  publish:
    operation: export/url
    input: thumb
    download_to: "out/"
"""
TINY_PIPELINE = """\
version: 1
name: bench-tiny
params:
  image: {type: string}
job:
  tag: bench-tiny
tasks:
  source:
    operation: import/upload
    upload_from: "{{ params.image }}"
  convert:
    operation: convert
    input: source
    output_format: webp
  publish:
    operation: export/url
    input: convert
    download_to: "out/"
"""


def make_photos(folder: Path, count: int) -> list[Path]:
    """``count`` 6 MP JPEGs, each different: soft noise over gradients, about 0.7 MB at quality 90
    (pure noise would make 4 MB files whose entropy decoding no draft mode shortens)."""
    folder.mkdir(parents=True)
    gradient = Image.linear_gradient("L").resize((3000, 2000))
    across = gradient.rotate(90)
    paths = []
    for i in range(count):
        noise = Image.effect_noise((3000, 2000), 30 + i % 20)
        bands = (Image.blend(gradient, noise, 0.25), Image.blend(across, noise, 0.15), gradient.rotate(180))
        photo = Image.merge("RGB", bands).filter(ImageFilter.GaussianBlur(1))
        path = folder / f"photo{i:03d}.jpg"
        photo.save(path, "JPEG", quality=90)
        paths.append(path)
    return paths


def floor_one(source: str, target: str) -> tuple[int, int]:
    with Image.open(source) as image:
        image.draft("RGB", (SIDE, SIDE))
        image.thumbnail((SIDE, SIDE))
        image.save(target, "WEBP")
        return image.size


def run_floor(photos: list[Path], out: Path) -> tuple[float, dict[str, tuple[int, int]]]:
    """Seconds of the floor over ``photos`` (2 processes, started before the clock) and each size."""
    out.mkdir(parents=True)
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(abs, [1, 2]))  # both processes up
        started = time.perf_counter()
        targets = [str(out / f"{p.stem}.webp") for p in photos]
        sizes = list(pool.map(floor_one, map(str, photos), targets))
        seconds = time.perf_counter() - started
    return seconds, {p.stem: size for p, size in zip(photos, sizes, strict=True)}


def tree_cpu(pid: int) -> float:
    """User + system CPU seconds of ``pid``, its live descendants and the children it reaped."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        number = int(entry.name)
        parents[number] = int(fields[1])
        own = int(fields[11]) + int(fields[12])
        reaped = int(fields[13]) + int(fields[14])
        times[number] = (own + (reaped if number == pid else 0)) / tick
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        total += times.get(current, 0.0)
        todo += [child for child, parent in parents.items() if parent == current]
    return total


class Serve:
    """``mcv serve`` in a child process with ``args``; ready when it printed "serving"."""

    def __init__(self, args: list[str], log: Path, env: dict[str, str]) -> None:
        with log.open("ab") as err:
            self.process = subprocess.Popen(
                [*MCV, "serve", "--port", "0", "--rate-limit", "0", *args],
                stdout=subprocess.PIPE, stderr=err, text=True, env={**os.environ, **env},
            )  # fmt: skip
        self.base = ""
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("serving"):
                break
            if line.startswith("base URL:"):
                self.base = line.split()[-1]
        else:
            raise SystemExit(f"mcv serve {' '.join(args)} did not start:\n{log.read_text()[-3000:]}")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)
        if self.process.stdout:
            self.process.stdout.close()


@dataclass
class BatchRun:
    seconds: float
    client_cpu: float
    service_cpu: float


def run_batch(work: Path, pipeline: str, rows: list[str], base: str, concurrency: int,
              service_pids: list[int], code: dict[str, str],
              extra: tuple[str, ...] = ()) -> BatchRun:  # fmt: skip
    """`mcv batch` over ``rows`` (one param each) in ``work``: seconds, its CPU and the services'.
    ``code``: PYTHONPATH to run another source tree of mcv_pipelines (``--against``), or nothing."""
    work.mkdir()
    (work / "pipeline.yaml").write_text(pipeline)
    name = "photo" if "params.photo" in pipeline else "image"
    (work / "rows.csv").write_text("\n".join([name, *rows]) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCV_")}
    env |= {"MCV_BASE_URL": base, "MCV_API_KEY": KEY, "MCV_CONFIG": str(work / "none.toml"),
            "MCV_DATA_DIR": str(work / "client-data"), **code}  # fmt: skip
    command = [*MCV, "batch", "pipeline.yaml", "--manifest", "rows.csv", "--concurrency", str(concurrency),
               "--progress", "none", "--report", "report.jsonl", *extra]  # fmt: skip
    before = sum(tree_cpu(pid) for pid in service_pids)
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    service = sum(tree_cpu(pid) for pid in service_pids) - before
    if os.waitstatus_to_exitcode(status) != 0:
        assert process.stderr is not None
        raise SystemExit(f"mcv batch failed in {work}:\n{process.stderr.read().decode()[-3000:]}")
    if process.stderr:
        process.stderr.close()
    return BatchRun(seconds, usage.ru_utime + usage.ru_stime, service)


def check_thumbs(out: Path, expected: dict[str, tuple[int, int]]) -> None:
    """Every photo's thumbnail is there, whole, a webp of the floor's size."""
    made = {p.stem: p for p in out.glob("*.webp")}
    if set(made) != set(expected):
        raise SystemExit(f"{out}: {len(made)} thumbnails of {len(expected)}")
    for stem, path in made.items():
        with Image.open(path) as image:
            image.load()
            if image.format != "WEBP" or image.size != expected[stem]:
                raise SystemExit(f"{path}: {image.format} {image.size}, the floor made {expected[stem]}")


@contextlib.contextmanager
def team(root: Path) -> Iterator[tuple[str, list[int], dict[str, int]]]:
    """1 API + 2 workers on a throwaway PostgreSQL and SeaweedFS S3: the API's URL, every pid of
    theirs, and the pids of the two servers (PostgreSQL's postmaster, weed) by name."""
    tests = Path(__file__).resolve().parent.parent / "tests"
    sys.path[:0] = [str(tests), str(tests / "integration" / "team")]
    from pg_server import PgServer, find_bin_dir

    from seaweed import SeaweedS3, need_weed

    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise SystemExit("--team needs PostgreSQL's initdb and pg_ctl (apt-get install postgresql)")
    pg_root = Path(tempfile.mkdtemp(prefix="mcv-bench-pg-"))
    postgres = PgServer(bin_dir, pg_root)
    postgres.start()
    s3 = SeaweedS3(need_weed(), root / "s3").start()
    processes: list[Serve] = []
    try:
        url = postgres.url(postgres.new_database())
        shared = ["--database", url, "--storage", f"s3://{s3.bucket}/bench", "--s3-endpoint", s3.endpoint]
        env = {"MCV_SIGNING_KEY": secrets.token_hex(32), "MCV_SERVE_API_KEY": KEY, **s3.env}
        processes.append(Serve(["--role", "api", *shared, "--data-dir", str(root / "api")],
                               root / "api.log", env))  # fmt: skip
        for n in (1, 2):
            args = ["--role", "worker", "--workers", "2", *shared, "--data-dir", str(root / f"w{n}")]
            processes.append(Serve(args, root / f"w{n}.log", env))
        postmaster = int((postgres.data / "postmaster.pid").read_text().split()[0])
        assert s3.process is not None
        servers = {"PostgreSQL": postmaster, "SeaweedFS": s3.process.pid}
        yield processes[0].base, [p.process.pid for p in processes], servers
    finally:
        for process in processes:
            process.stop()
        s3.stop()
        postgres.stop()
        shutil.rmtree(pg_root, ignore_errors=True)


def embedded(work: Path, photos: list[str], tiny: list[str], sizes: dict[str, tuple[int, int]],
             code: dict[str, str], extra: tuple[str, ...] = ()) -> tuple[BatchRun, BatchRun]:  # fmt: skip
    """The photos, then the tiny rows, through `mcv batch` (with ``extra`` arguments) against one fresh
    `mcv serve --rate-limit 0`."""
    env = {"MCV_SERVE_API_KEY": KEY, **code}
    work.mkdir(parents=True)
    served = Serve(["--data-dir", str(work / "service"), "--rate-limit", "0"], work / "serve.log", env)
    try:
        pids = [served.process.pid]
        photo_run = run_batch(work / "photos", PHOTO_PIPELINE, photos, served.base, 4, pids, code, extra)
        check_thumbs(work / "photos" / "out", sizes)
        tiny_run = run_batch(work / "tiny", TINY_PIPELINE, tiny, served.base, 8, pids, code, extra)
        if len(list((work / "tiny" / "out").glob("*.webp"))) != len(tiny):
            raise SystemExit("tiny rows: outputs missing")
    finally:
        served.stop()
    return photo_run, tiny_run


def one_round(work: Path, photos: list[Path], tiny: list[str], with_team: bool, against: Path | None) -> None:
    floor_seconds, sizes = run_floor(photos, work / "floor")
    names = [str(p) for p in photos]
    ways = [("", embedded(work / "embedded", names, tiny, sizes, {})),
            (" --rows-per-job 1", embedded(work / "one", names, tiny, sizes, {}, ("--rows-per-job", "1")))]
    if against is not None:
        code = {"PYTHONPATH": str(against)}
        ways.append((f" [{against}]", embedded(work / "against", names, tiny, sizes, code)))
    team_run = None
    server_cpu: dict[str, float] = {}
    if with_team:
        with team(work / "team") as (base, pids, servers):
            before = {name: tree_cpu(pid) for name, pid in servers.items()}
            team_run = run_batch(work / "team-photos", PHOTO_PIPELINE, names, base, 4, pids, {})
            server_cpu = {name: tree_cpu(pid) - before[name] for name, pid in servers.items()}
        check_thumbs(work / "team-photos" / "out", sizes)
    count = len(photos)
    floor_rate = count / floor_seconds
    print(f"{'way':<58} {'seconds':>8} {'photos/s':>9} {'x floor':>8} {'client ms':>10} {'service ms':>11}")
    print(f"{'Pillow floor, 2 processes, draft + thumbnail + webp':<58} {floor_seconds:8.2f} "
          f"{floor_rate:9.1f} {1.0:8.2f}")  # fmt: skip
    runs = [(f"mcv batch --concurrency 4 -> mcv serve{label}", photo) for label, (photo, _) in ways]
    if team_run is not None:
        runs.append(("mcv batch --concurrency 4 -> 1 API + 2 workers (PG + S3)", team_run))
    for label, run in runs:
        rate = count / run.seconds
        print(f"{label:<58} {run.seconds:8.2f} {rate:9.1f} {rate / floor_rate:8.2f} "
              f"{run.client_cpu * 1000 / count:10.1f} {run.service_cpu * 1000 / count:11.1f}")  # fmt: skip
    if team_run is not None:
        servers = ", ".join(f"{name} {cpu * 1000 / count:.1f}" for name, cpu in server_cpu.items())
        print(f"team / embedded: {ways[0][1][0].seconds / team_run.seconds:.2f}x; "
              f"the team's servers, CPU ms per photo: {servers}")  # fmt: skip
    rows = len(tiny)
    print(f"\n{'tiny rows (16x16 png -> webp, --concurrency 8)':<58} {'rows/s':>8} {'client ms/row':>14} "
          f"{'service ms/row':>15} {'total ms/row':>13}")  # fmt: skip
    for label, (_, run) in ways:
        client, service = run.client_cpu * 1000 / rows, run.service_cpu * 1000 / rows
        print(f"{f'{rows} rows -> mcv serve{label}':<58} {rows / run.seconds:8.1f} {client:14.2f} "
              f"{service:15.2f} {client + service:13.2f}")  # fmt: skip
    rate, client, service = http_floor.measure(rows, 8)
    print(f"{f'{rows} rows, the 4 exchanges alone (bench/http_floor.py)':<58} {rate:8.1f} {client:14.2f} "
          f"{service:15.2f} {client + service:13.2f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--photos", type=int, default=300, help="photos to make (default 300)")
    parser.add_argument("--rows", type=int, default=400, help="tiny rows (default 400)")
    parser.add_argument("--repeat", type=int, default=1, help="rounds, each side by side (default 1)")
    parser.add_argument("--team", action="store_true", help="also 1 API + 2 workers on PostgreSQL + S3")
    parser.add_argument(
        "--against", type=Path, default=None, metavar="SRC",
        help="also run client and service from another source tree, side by side in each round: the "
        "src/ of a whole checkout (schemas/ beside it), e.g. `git archive COMMIT | tar -x -C DIR`",
    )  # fmt: skip
    parser.add_argument("--work-dir", type=Path, default=None, help="where the temporary directory goes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcv-bench-photos-", dir=args.work_dir) as tmp:
        root = Path(tmp)
        photos = make_photos(root / "photos", args.photos)
        (root / "tiny").mkdir()
        tiny = []
        for i in range(args.rows):
            path = root / "tiny" / f"t{i:04d}.png"
            Image.new("RGB", (16, 16), (i % 256, (i * 7) % 256, 90)).save(path)
            tiny.append(str(path))
        for n in range(args.repeat):
            print(f"\nround {n + 1} of {args.repeat}, load: {os.getloadavg()[0]:.2f} "
                  f"{os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")  # fmt: skip
            one_round(root / f"round{n}", photos, tiny, args.team, args.against)


if __name__ == "__main__":
    main()
