"""Generate a large synthetic operations listing for the catalog benchmark (not kept in git).

    python bench/make_catalog.py [--types 50000] [--seed 7] [--out bench/data/catalog-50k.json]

The listing holds a core of realistic image/document conversions (the ones bench/catalog.py checks)
plus filler conversion types over made-up formats and engines, each with 3-10 options of every type
(enums with possible_values included), so that loading and lookups work at a realistic scale.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
IMAGE = ["jpg", "png", "webp", "gif", "tiff", "bmp", "heic", "avif"]
DOCS = ["docx", "xlsx", "pptx", "odt", "html", "md"]
OPTION_POOL: list[dict[str, Any]] = [
    {"name": "width", "type": "integer", "default": None},
    {"name": "height", "type": "integer", "default": None},
    {"name": "quality", "type": "integer", "default": 82},
    {"name": "fit", "type": "enum", "default": "max", "possible_values": ["max", "crop", "scale", "upscale"]},
    {"name": "strip", "type": "boolean", "default": False},
    {"name": "density", "type": "float", "default": 72.0},
    {"name": "page_range", "type": "string", "default": None},
    {"name": "pdf_a", "type": "boolean", "default": False},
    {"name": "colorspace", "type": "enum", "default": None, "possible_values": ["srgb", "cmyk", "gray"]},
    {"name": "metadata", "type": "dictionary", "default": None},
    {"name": "password", "type": "string", "default": None},
    {
        "name": "audio_codec",
        "type": "enum",
        "default": "aac",
        "possible_values": ["aac", "mp3", "opus", "copy"],
    },
    {"name": "video_bitrate", "type": "integer", "default": None},
    {"name": "sample_rate", "type": "integer", "default": 44100},
    {"name": "trim_start", "type": "string", "default": None},
]
IMAGE_OPTIONS = ["width", "height", "quality", "fit", "strip", "density", "colorspace"]


def _options(names: list[str]) -> list[dict[str, Any]]:
    pool = {o["name"]: o for o in OPTION_POOL}
    return [dict(pool[n]) for n in names]


def _descriptor(
    op: str, fin: str, fout: str, engine: str, credits: int, options: list[dict[str, Any]], rng: random.Random
) -> dict[str, Any]:
    return {
        "operation": op,
        "input_format": fin,
        "output_format": fout,
        "engine": engine,
        "credits": credits,
        "options": options,
        "engine_versions": [
            {
                "version": f"{rng.randint(1, 9)}.{rng.randint(0, 20)}",
                "default": True,
                "latest": True,
                "deprecated": False,
                "experimental": False,
            }
        ],
        "deprecated": rng.random() < 0.02,
        "experimental": rng.random() < 0.03,
        "meta": {"group": "image" if fin in IMAGE else "other"},
    }


def generate(types: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for fin in IMAGE:
        for fout in [*IMAGE, "pdf"]:
            if fin != fout:
                out.append(_descriptor("convert", fin, fout, "imagemagick", 1, _options(IMAGE_OPTIONS), rng))
                out.append(_descriptor("convert", fin, fout, "vips", 1, _options(IMAGE_OPTIONS[:4]), rng))
        out.append(_descriptor("thumbnail", fin, "png", "imagemagick", 1, _options(IMAGE_OPTIONS[:4]), rng))
    for fin in DOCS:
        out.append(
            _descriptor(
                "convert",
                fin,
                "pdf",
                "libreoffice",
                4,
                _options(["page_range", "pdf_a", "password", "metadata"]),
                rng,
            )
        )
    out.append(
        {
            "operation": "optimize",
            "input_format": "pdf",
            "output_format": "pdf",
            "engine": "qpdf",
            "credits": 2,
            "options": [
                {
                    "name": "profile",
                    "type": "enum",
                    "default": "web",
                    "possible_values": ["web", "print", "archive", "mrc", "max"],
                }
            ],
        }
    )
    for core in out:  # the core types are what tasks use: keep them stable, current, default
        core["deprecated"] = core["experimental"] = False
        core["default"] = core["engine"] != "vips"
    formats = [f"x{n:04d}" for n in range(600)]
    engines = [f"engine{n:02d}" for n in range(12)]
    seen = {(d["operation"], d["input_format"], d["output_format"], d["engine"]) for d in out}
    while len(out) < types:
        op = rng.choice(["convert", "convert", "convert", "thumbnail", "metadata"])
        key = (op, rng.choice(formats), rng.choice(formats), rng.choice(engines))
        if key in seen:
            continue
        seen.add(key)
        names = rng.sample([o["name"] for o in OPTION_POOL], rng.randint(3, 10))
        out.append(_descriptor(*key, rng.randint(1, 8), _options(names), rng))
    rng.shuffle(out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--types", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "catalog-50k.json")
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    listing = generate(args.types, args.seed)
    args.out.write_text(json.dumps({"data": listing, "links": {"next": None}, "meta": {}}))
    print(f"wrote {len(listing)} conversion types to {args.out} ({args.out.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
