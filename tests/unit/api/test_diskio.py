"""Read-ahead and write-behind move every byte, in order, and leave no read behind a closed file."""

from __future__ import annotations

import asyncio
import io
import os
import threading
from pathlib import Path
from typing import BinaryIO, cast

from mcv_pipelines.api.diskio import WriteBehind, read_ahead


async def test_read_ahead_yields_the_file_in_order_and_stops_at_its_end(tmp_path: Path) -> None:
    data = os.urandom(10_000)
    path = tmp_path / "in.bin"
    path.write_bytes(data)
    with path.open("rb") as handle:
        chunks = [chunk async for chunk in read_ahead(handle, 50_000, chunk_size=4096)]
    assert b"".join(chunks) == data  # asked for more than there is: ends at the end of the file
    assert [len(c) for c in chunks] == [4096, 4096, 1808]


class _HeldFile(io.FileIO):
    """A file whose second read waits until the test lets it go."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, "rb")
        self.reads = 0
        self.second_read = threading.Event()

    def read(self, size: int = -1, /) -> bytes:
        self.reads += 1
        if self.reads == 2:
            assert self.second_read.wait(30), "the test never let the second read go"
        return super().read(size)


async def test_read_ahead_closed_early_finishes_its_read_first(tmp_path: Path) -> None:
    path = tmp_path / "in.bin"
    path.write_bytes(os.urandom(100_000))
    with _HeldFile(path) as handle:
        chunks = read_ahead(cast(BinaryIO, handle), 100_000, chunk_size=1000)
        assert len(await anext(chunks)) == 1000  # and the read of the next chunk is in flight now
        closing = asyncio.create_task(chunks.aclose())
        for _ in range(3):
            await asyncio.sleep(0)  # aclose runs until it waits for something
        assert not closing.done(), "closed with a read in flight: closing the file now would break it"
        handle.second_read.set()
        await asyncio.wait_for(closing, timeout=30)
        assert handle.tell() == 2000  # the read in flight was done before aclose returned
        assert handle.reads == 2  # and no read was started after it


async def test_write_behind_writes_everything_and_counts_it(tmp_path: Path) -> None:
    pieces = [os.urandom(n) for n in (700, 3000, 1, 5000, 64)]
    path = tmp_path / "out.bin"
    handed: list[int] = []
    async with WriteBehind(path.open("wb"), chunk_size=4096) as out:
        for piece in pieces:
            if await out.add(piece):
                handed.append(out.written)
    assert path.read_bytes() == b"".join(pieces)
    assert out.written == sum(map(len, pieces))
    assert handed == [8701]  # one write started once 4096 bytes or more had gathered; the rest at exit
    assert out.handle.closed


async def test_read_ahead_of_a_small_file_gives_it_whole(tmp_path: Path) -> None:
    data = os.urandom(300)
    path = tmp_path / "small.bin"
    path.write_bytes(data)
    with path.open("rb") as handle:
        chunks = [chunk async for chunk in read_ahead(handle, 1000)]  # read on the loop, no hop
    assert chunks == [data]


async def test_write_behind_keeps_order_when_big_writes_and_small_ones_mix(tmp_path: Path) -> None:
    # 200 KiB pieces go to the worker thread, the small tail is written on the loop after them
    pieces = [os.urandom(200 * 1024), os.urandom(10), os.urandom(200 * 1024), os.urandom(99)]
    path = tmp_path / "mixed.bin"
    async with WriteBehind(path.open("wb"), chunk_size=100 * 1024) as out:
        for piece in pieces:
            await out.add(piece)
    assert path.read_bytes() == b"".join(pieces)
    assert out.written == sum(map(len, pieces))
