"""Named shortcuts for the standalone task endpoints (imports and processing), over ``create_task``.

Extra keyword arguments are sent as top-level keys of the body, as the spec describes engine options.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcv_pipelines.api.models import Task

__all__ = ["TaskShortcuts"]


class TaskShortcuts:
    """Mixed into ApiClient, which provides ``create_task``."""

    async def create_task(self, operation: str, payload: Mapping[str, Any]) -> Task:
        raise NotImplementedError

    async def import_url(self, url: str, **options: Any) -> Task:
        return await self.create_task("import/url", {"url": url, **options})

    async def import_upload(self, **options: Any) -> Task:
        return await self.create_task("import/upload", options)

    async def import_base64(self, file: str, filename: str, **options: Any) -> Task:
        return await self.create_task("import/base64", {"file": file, "filename": filename, **options})

    async def import_raw(self, file: str, filename: str, **options: Any) -> Task:
        return await self.create_task("import/raw", {"file": file, "filename": filename, **options})

    async def import_s3(self, **options: Any) -> Task:
        return await self.create_task("import/s3", options)

    async def import_azure_blob(self, **options: Any) -> Task:
        return await self.create_task("import/azure/blob", options)

    async def import_google_cloud_storage(self, **options: Any) -> Task:
        return await self.create_task("import/google-cloud-storage", options)

    async def convert(self, input: str | Sequence[str], output_format: str, **options: Any) -> Task:
        return await self.create_task("convert", {"input": input, "output_format": output_format, **options})

    async def thumbnail(self, input: str | Sequence[str], output_format: str, **options: Any) -> Task:
        body = {"input": input, "output_format": output_format, **options}
        return await self.create_task("thumbnail", body)

    async def optimize(self, input: str | Sequence[str], **options: Any) -> Task:
        return await self.create_task("optimize", {"input": input, **options})

    async def merge(self, input: Sequence[str], output_format: str = "pdf", **options: Any) -> Task:
        body = {"input": list(input), "output_format": output_format, **options}
        return await self.create_task("merge", body)

    async def capture_website(self, url: str, output_format: str, **options: Any) -> Task:
        body = {"url": url, "output_format": output_format, **options}
        return await self.create_task("capture-website", body)
