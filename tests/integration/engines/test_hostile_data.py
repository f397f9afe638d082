"""Hostile data files read nothing outside their task and cost what their bytes cost (issue 47).

The data engine starts no program, so no seal stands between it and the host: what holds is that it
parses the task's bytes and nothing else. XML's external entities (of the planted secrets and of
/etc/passwd), an external DTD and XInclude, a plist's or a workbook's entities, a vCard's photo named by
a path, and YAML's Python tags bring nothing in; an entity expansion, a YAML alias bomb, a binary
plist whose objects share each other and nesting without end are refused at once with a sentence,
not after the memory is gone.
"""

from __future__ import annotations

import base64
import io
import struct
import time
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from engine_job_helpers import run_job, task_named
from openpyxl import Workbook
from planted_secrets import Planted, planted

from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.server import LocalService

RequireEngine = Callable[..., Engine]


@pytest.fixture
def secrets(
    service: LocalService, client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Planted]:
    with planted(service, client, monkeypatch) as found:
        yield found


def _convert_all(client: httpx.Client, files: dict[str, bytes], target: str) -> dict[str, dict[str, Any]]:
    """Every file through one job (a task each, exported each; to yaml the files of ``target``);
    file name -> its ended convert task, with ``output``: the bytes it made (empty when it failed)."""
    tasks: dict[str, Any] = {}
    for index, (name, data) in enumerate(files.items()):
        tasks[f"in{index}"] = {"operation": "import/base64", "file": base64.b64encode(data).decode(),
                               "filename": name}  # fmt: skip
        output_format = "yaml" if name.endswith(f".{target}") else target
        tasks[f"c{index}"] = {"operation": "convert", "input": f"in{index}", "output_format": output_format}
        tasks[f"e{index}"] = {"operation": "export/url", "input": f"c{index}"}
    job = run_job(client, tasks)
    ended = {}
    for index, name in enumerate(files):
        found = (task_named(job, f"e{index}").get("result") or {}).get("files", [])
        output = b"".join(httpx.get(item["url"], timeout=60).content for item in found)
        ended[name] = {**task_named(job, f"c{index}"), "output": output}
    return ended


def _hostile_xml(secrets: Planted) -> dict[str, bytes]:
    paths = [*map(str, secrets.text.values()), "/etc/passwd"]
    files = {}
    for index, path in enumerate(paths):
        files[f"entity-{index}.xml"] = (
            f'<?xml version="1.0"?>\n<!DOCTYPE a [<!ENTITY leak SYSTEM "file://{path}">]>\n<a>&leak;</a>\n'
        ).encode()
        files[f"parameter-{index}.xml"] = (
            f'<?xml version="1.0"?>\n<!DOCTYPE a [<!ENTITY % leak SYSTEM "file://{path}"> %leak;]>\n<a/>\n'
        ).encode()
        files[f"dtd-{index}.xml"] = (
            f'<?xml version="1.0"?>\n<!DOCTYPE a SYSTEM "file://{path}">\n<a>&leak;</a>\n'
        ).encode()
        files[f"xinclude-{index}.xml"] = (
            '<?xml version="1.0"?>\n<a xmlns:xi="http://www.w3.org/2001/XInclude">'
            f'<xi:include href="{path}" parse="text"/><xi:include href="file://{path}"/></a>\n'
        ).encode()
        files[f"photo-{index}.vcf"] = (
            f"BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Quinn\r\nPHOTO:file://{path}\r\n"
            f"PHOTO;VALUE=URI:{path}\r\nEND:VCARD\r\n"
        ).encode()
        files[f"entity-{index}.plist"] = (
            f'<?xml version="1.0"?>\n<!DOCTYPE plist [<!ENTITY leak SYSTEM "file://{path}">]>\n'
            '<plist version="1.0"><dict><key>a</key><string>&leak;</string></dict></plist>\n'
        ).encode()
    return files


def _workbook_with_entity(path: str) -> bytes:
    book = Workbook()
    book.active.append(["name"])
    book.active.append(["PLACEHOLDER"])
    plain = io.BytesIO()
    book.save(plain)
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(plain.getvalue())) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if b"PLACEHOLDER" in data:  # the shared strings or the sheet's inline string
                doctype = f'<!DOCTYPE r [<!ENTITY leak SYSTEM "file://{path}">]>'.encode()
                head, declared, rest = data.partition(b"?>")
                data = head + declared + doctype + rest if declared else doctype + data
                data = data.replace(b"PLACEHOLDER", b"&leak;")
            target.writestr(item, data)
    return out.getvalue()


def test_xml_plist_and_xlsx_bring_in_no_file(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client
) -> None:
    require_engine("data", "convert", "xml", "json")
    files = _hostile_xml(secrets)
    files.update(
        {f"entity-{i}.xlsx": _workbook_with_entity(str(p)) for i, p in enumerate(secrets.text.values())}
    )
    ended = _convert_all(client, files, "json")
    leaks = {name: found for name, task in ended.items()
             if (found := secrets.found_in(task["output"] + str(task.get("message")).encode()))}  # fmt: skip
    assert leaks == {}
    for name, task in ended.items():
        if name.startswith("entity-") or name.startswith("parameter-"):
            assert task["status"] == "error", name
            assert task["code"] == "INVALID_INPUT_FILE", (name, task.get("message"))
        else:  # an external DTD is never loaded, an XInclude is an element like any other
            assert task["status"] == "finished", (name, task.get("message"))
    assert b'"@href"' in ended["xinclude-0.xml"]["output"]
    assert "declares an entity" in ended["entity-0.xlsx"]["message"]


def _plist_bomb(levels: int = 60) -> bytes:
    """A binary plist of ``levels`` arrays, each holding the next twice: 2**60 values expanded."""
    objects = [bytes([0xA2, i + 1, i + 1]) for i in range(levels)] + [b"\x51x"]
    body, offsets = b"bplist00", []
    for item in objects:
        offsets.append(len(body))
        body += item
    table = len(body)
    body += b"".join(struct.pack(">H", offset) for offset in offsets)
    return body + b"\x00" * 6 + bytes([2, 1]) + struct.pack(">QQQ", len(objects), 0, table)


def _yaml_bomb() -> bytes:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    return ("\n".join(lines) + "\n").encode()


def test_bombs_and_endless_nesting_are_refused_at_once(
    require_engine: RequireEngine, client: httpx.Client
) -> None:
    require_engine("data", "convert", "yaml", "json")
    files = {
        "laughs.xml": b'<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;">'
        b'<!ENTITY c "&b;&b;&b;&b;&b;">]><l>&c;</l>',
        "aliases.yaml": _yaml_bomb(),
        "self.yaml": b"a: &a [1, *a]\n",
        "python.yaml": b"a: !!python/object/apply:os.system ['echo pwned']\n",
        "shared.plist": _plist_bomb(),
        "deep.json": b"[" * 50_000 + b"]" * 50_000,
        "deep.xml": b"<a>" * 500 + b"</a>" * 500,
        "deep.yaml": b"[" * 300 + b"]" * 300,
    }
    started = time.monotonic()
    ended = _convert_all(client, files, "json")
    assert time.monotonic() - started < 20
    messages = {name: task.get("message") or "" for name, task in ended.items()}
    assert {name: task["code"] for name, task in ended.items()} == dict.fromkeys(files, "INVALID_INPUT_FILE")
    assert "entity declarations are refused" in messages["laughs.xml"]
    assert "bomb" in messages["aliases.yaml"]
    assert "bomb" in messages["shared.plist"]
    assert "holds itself" in messages["self.yaml"]
    assert "python/object" in messages["python.yaml"]
    assert "deep" in messages["deep.json"]
    assert "deeper than 100" in messages["deep.xml"]
    assert "deep" in messages["deep.yaml"]
