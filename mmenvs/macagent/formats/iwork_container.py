"""The document container of MacAgent's iWork files (Pages, Numbers, Keynote), owned by no backend.

Real iWork documents are zip archives (``Index/*.iwa`` protobuf streams, ``Metadata/``, a preview).
MacAgent's keep the same outer shape — a zip with ``Metadata/Properties.plist`` and the document under
``Index/`` — but store the content as one JSON file, ``Index/Document.json``, so shell tools
(``unzip -p doc.pages Index/Document.json``) and getters can read it. Archives are written
deterministically (fixed member times, sorted keys): the same document gives the same bytes.

The sim's apps write and read them (``backends/sim/apps/iwork.py`` adds the confined-layer file IO);
the checkpoints' getters parse the bytes they fetch from any guest with :func:`parse_document`.
"""

from __future__ import annotations

import hashlib
import io
import json
import plistlib
import uuid
import zipfile
from pathlib import Path
from typing import Any

#: The largest document a reader inflates (the packed file and its unpacked content).
MAX_DOCUMENT_BYTES = 16 * 2**20

# document kind → (file suffix, app name)
KINDS: dict[str, tuple[str, str]] = {
    "pages": (".pages", "Pages"),
    "numbers": (".numbers", "Numbers"),
    "keynote": (".key", "Keynote"),
}
FORMAT_VERSION = 1
CONTENT = "Index/Document.json"
PROPERTIES = "Metadata/Properties.plist"
STAMP = (2025, 1, 1, 0, 0, 0)  # member times: fixed, so equal documents are equal files


class IWorkFileError(ValueError):
    """A file that is not a readable sim iWork document (names the file and what is wrong)."""


def kind_of(path: Path) -> str | None:
    """The document kind a path's suffix names ("pages" | "numbers" | "keynote"), or None."""
    suffix = path.suffix.lower()
    return next((k for k, (s, _) in KINDS.items() if s == suffix), None)


def document_bytes(kind: str, content: dict[str, Any]) -> bytes:
    """The archive of a ``kind`` document holding ``content`` (JSON-able)."""
    if kind not in KINDS:
        raise ValueError(f"unknown document kind {kind!r}; expected one of {', '.join(KINDS)}")
    body = json.dumps({"kind": kind, "format": FORMAT_VERSION, "content": content},
                      sort_keys=True, ensure_ascii=False, indent=1).encode("utf-8")
    doc_id = uuid.UUID(bytes=hashlib.sha256(body).digest()[:16], version=4)
    props = plistlib.dumps({"documentUUID": str(doc_id).upper(), "fileFormatVersion": f"sim-{FORMAT_VERSION}",
                            "isMultiPage": kind != "numbers", "revision": "0::sim"}, sort_keys=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in ((PROPERTIES, props), (CONTENT, body)):
            z.writestr(zipfile.ZipInfo(name, date_time=STAMP), data)
    return buf.getvalue()


def parse_document(data: bytes, name: str, kind: str | None = None) -> dict[str, Any]:
    """The content of the document archive ``data`` (the file ``name``, for messages)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            info = z.getinfo(CONTENT)
            if info.file_size > MAX_DOCUMENT_BYTES:  # a zip bomb: the declared size bounds what is inflated
                raise IWorkFileError(f"{name}: {CONTENT} is {info.file_size} bytes unpacked, over the "
                                     f"{MAX_DOCUMENT_BYTES}-byte limit of a document")
            data = json.loads(z.read(info).decode("utf-8"))
    except (zipfile.BadZipFile, KeyError):
        raise IWorkFileError(f"{name}: not an iWork document (expected a zip archive with {CONTENT})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise IWorkFileError(f"{name}: {CONTENT} is not valid JSON ({e})") from None
    if not isinstance(data, dict) or data.get("kind") not in KINDS or not isinstance(data.get("content"), dict):
        raise IWorkFileError(f"{name}: {CONTENT} must hold {{kind, format, content}}")
    if kind is not None and data["kind"] != kind:
        raise IWorkFileError(f"{name}: is a {KINDS[data['kind']][1]} document, expected {KINDS[kind][1]}")
    return data["content"]
