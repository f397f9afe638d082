"""Output arguments for animations made from video: GIF (with a palette made for the clip), APNG and
animated WebP. They loop forever, like the animations people put on web pages, and hold no sound."""

from __future__ import annotations

__all__ = ["ANIMATION_ENCODERS", "animation_arguments"]

ANIMATION_ENCODERS = frozenset({"gif", "apng", "libwebp_anim"})


def animation_arguments(encoder: str, scale: str | None, fps: float | None) -> list[str]:
    """``-c:v`` and the filters for ``encoder``; ``scale`` a scale filter, ``fps`` frames per second."""
    steps = [step for step in (f"fps={fps:g}" if fps else None, scale) if step]
    if encoder == "gif":
        # GIF holds 256 colours: one palette computed from the whole clip beats the default web palette
        palette = "split[frames][copy];[copy]palettegen=stats_mode=diff[palette];[frames][palette]paletteuse"
        return ["-c:v", "gif", "-vf", ",".join([*steps, palette]), "-loop", "0"]
    filters = ["-vf", ",".join(steps)] if steps else []
    if encoder == "apng":
        return ["-c:v", "apng", "-pix_fmt", "rgba", *filters, "-plays", "0"]
    return ["-c:v", "libwebp_anim", "-pix_fmt", "yuva420p", "-quality", "75", *filters, "-loop", "0"]
