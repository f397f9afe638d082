"""The UNO side of the office pool: run by path under the system Python, which has Debian's ``uno``.

The service's own Python (a venv, maybe another version) cannot import ``uno``, so each warm
LibreOffice gets one of these helpers: ``python3 uno_bridge.py PIPE_NAME``. It connects to the
soffice listening on that pipe, closes LibreOffice's doors to the network, then answers one JSON
request per line on stdin with one JSON line on stdout (requests in ``office/bridge_client.py``).
It imports only the standard library and ``uno``; it never imports the package around it.

Closing the doors (issue 24: a .docx whose picture is an external link made LibreOffice fetch it):
- the content providers for http(s), ftp, WebDAV and CMIS are taken out of the content broker, so
  no linked picture, stylesheet or frame can be read from a URL at all;
- ``BlockUntrustedRefererLinks`` refuses links of documents from untrusted places (all of ours), so
  a picture linked by a file: URL is not read from the service's disk either;
- Writer and Calc never update links; documents load with macros never run and no link update.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from typing import Any

_NETWORK_SCHEMES = frozenset({
    "http", "https", "ftp", "webdav", "webdavs", "vnd.sun.star.webdav", "vnd.sun.star.webdavs",
    "vnd.libreoffice.cmis", "smb", "sftp", "dav", "davs",
})  # fmt: skip
_SETTINGS = (
    ("/org.openoffice.Office.Common/Security/Scripting", "BlockUntrustedRefererLinks", True),
    ("/org.openoffice.Office.Common/Security/Scripting", "MacroSecurityLevel", 3),
    ("/org.openoffice.Office.Writer/Content/Update", "Link", 2),  # 2: never
    ("/org.openoffice.Office.Calc/Content/Update", "Link", 2),
)
_CONNECT_SECONDS = 60.0


class Failure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Bridge:
    def __init__(self, pipe: str) -> None:
        import uno  # type: ignore[import-not-found]  # only the system Python has it

        self.uno: Any = uno
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
        deadline = time.monotonic() + _CONNECT_SECONDS
        while True:
            try:
                self.ctx: Any = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
                break
            except Exception:  # NoConnectException until soffice listens
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.smgr: Any = self.ctx.ServiceManager
        self.desktop: Any = self.smgr.createInstanceWithContext("com.sun.star.frame.Desktop", self.ctx)
        self._seal()

    def prop(self, name: str, value: Any) -> Any:
        from com.sun.star.beans import PropertyValue  # type: ignore[import-not-found]  # comes with uno

        item = PropertyValue()
        item.Name = name
        item.Value = value
        return item

    def _seal(self) -> None:
        broker = self.smgr.createInstanceWithContext("com.sun.star.ucb.UniversalContentBroker", self.ctx)
        for info in broker.queryContentProviders():
            if info.Scheme.lower() in _NETWORK_SCHEMES:
                broker.deregisterContentProvider(info.ContentProvider, info.Scheme)
        provider = self.smgr.createInstanceWithContext(
            "com.sun.star.configuration.ConfigurationProvider", self.ctx
        )
        for path, name, value in _SETTINGS:
            access = provider.createInstanceWithArguments(
                "com.sun.star.configuration.ConfigurationUpdateAccess", (self.prop("nodepath", path),)
            )
            access.setPropertyValue(name, value)
            access.commitChanges()

    def convert(self, job: dict[str, Any]) -> dict[str, Any]:
        load = [
            self.prop("Hidden", True),
            self.prop("ReadOnly", True),
            self.prop("MacroExecutionMode", 0),  # NEVER_EXECUTE
            self.prop("UpdateDocMode", 0),  # NO_UPDATE
        ]
        if job.get("import_filter"):
            load.append(self.prop("FilterName", job["import_filter"]))
        if job.get("import_options"):
            load.append(self.prop("FilterOptions", job["import_options"]))
        try:
            doc = self.desktop.loadComponentFromURL(self.uno.systemPathToFileUrl(job["source"]), "_blank", 0,
                                                    tuple(load))  # fmt: skip
        except Exception as exc:
            if _office_gone(exc):
                raise
            raise Failure("INVALID_INPUT", "LibreOffice could not open the file") from exc
        if doc is None:
            raise Failure("INVALID_INPUT", "LibreOffice could not open the file")
        try:
            if job.get("sheet"):
                _keep_sheet(doc, int(job["sheet"]))
            if job.get("media_type"):
                return {"files": self._pages_to_images(doc, job)}
            store = [self.prop("FilterName", job["export_filter"])]
            if job.get("export_options"):
                store.append(self.prop("FilterOptions", job["export_options"]))
            if job.get("filter_data"):
                data = tuple(self.prop(k, v) for k, v in job["filter_data"].items())
                store.append(
                    self.prop("FilterData", self.uno.Any("[]com.sun.star.beans.PropertyValue", data))
                )
            try:
                self.uno.invoke(
                    doc, "storeToURL", (self.uno.systemPathToFileUrl(job["target"]), tuple(store))
                )
            except Exception as exc:
                if _office_gone(exc):
                    raise
                raise Failure("CONVERSION_FAILED", f"LibreOffice could not write {job['format']}") from exc
            return {"files": [job["target"]]}
        finally:
            with contextlib.suppress(Exception):  # closing a document that is already gone
                doc.close(True)

    def _pages_to_images(self, doc: Any, job: dict[str, Any]) -> list[str]:
        pages = doc.getDrawPages()
        count = pages.getCount()
        first, last = job.get("first") or 1, min(job.get("last") or count, count)
        if first > count:
            message = f"option 'slide_range' starts at {first}, the document has {count}"
            raise Failure("INVALID_OPTION", message)
        exporter = self.smgr.createInstanceWithContext("com.sun.star.drawing.GraphicExportFilter", self.ctx)
        written = []
        for number in range(first, last + 1):
            target = job["target"].replace("%d", str(number))
            page = pages.getByIndex(number - 1)
            data = []
            if job.get("width"):  # both sides, or LibreOffice keeps its own size
                width = int(job["width"])
                height = max(1, round(width * page.Height / max(1, page.Width)))
                data += [self.prop("PixelWidth", width), self.prop("PixelHeight", height)]
            if job.get("quality"):
                data.append(self.prop("Quality", int(job["quality"])))
            exporter.setSourceDocument(page)
            exporter.filter((
                self.prop("URL", self.uno.systemPathToFileUrl(target)),
                self.prop("MediaType", job["media_type"]),
                self.prop("FilterData", self.uno.Any("[]com.sun.star.beans.PropertyValue", tuple(data))),
            ))  # fmt: skip
            written.append(target)
        return written


def _keep_sheet(doc: Any, number: int) -> None:
    """Make sheet ``number`` (1-based) the only one, so sheet-at-a-time formats (csv) write it."""
    sheets = doc.getSheets()
    names = list(sheets.getElementNames())
    if number > len(names):
        raise Failure("INVALID_OPTION", f"option 'sheet' is {number}, the workbook has {len(names)} sheets")
    for index, name in enumerate(names, start=1):
        if index != number:
            sheets.removeByName(name)


def _office_gone(exc: BaseException) -> bool:
    """True when the error is the connection to soffice, not the document."""
    name = type(exc).__name__
    return name == "DisposedException" or (name == "RuntimeException" and "Binary URP bridge" in str(exc))


def main(argv: list[str]) -> int:
    try:
        bridge = Bridge(argv[1])
    except Exception as exc:
        _answer({"ok": False, "code": "OFFICE_NOT_STARTED", "message": f"{type(exc).__name__}: {exc}"})
        return 1
    _answer({"ok": True, "ready": True})
    for line in sys.stdin:
        try:
            job = json.loads(line)
            if job.get("op") == "ping":  # a round trip to soffice: a hung one never answers
                _answer({"ok": True, "frames": bridge.desktop.getFrames().getCount()})
            else:
                _answer({"ok": True, **bridge.convert(job)})
        except Failure as failure:
            _answer({"ok": False, "code": failure.code, "message": failure.message})
        except Exception as exc:
            gone = _office_gone(exc)
            _answer({"ok": False, "code": "OFFICE_GONE" if gone else "CONVERSION_FAILED",
                     "message": f"{type(exc).__name__}: {exc}"})  # fmt: skip
            if gone:
                return 1
    return 0


def _answer(reply: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
