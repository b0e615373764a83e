"""The document file format the sim's Pages, Numbers and Keynote share.

Real iWork documents are zip archives (``Index/*.iwa`` protobuf streams, ``Metadata/``, a preview).
The sim keeps the same outer shape — a zip with ``Metadata/Properties.plist`` and the document under
``Index/`` — but stores the content as one JSON file, ``Index/Document.json``, so shell tools
(``unzip -p doc.pages Index/Document.json``) and getters can read it. Archives are written
deterministically (fixed member times, sorted keys): the same document gives the same bytes.
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

# document kind → (file suffix, app name)
KINDS: dict[str, tuple[str, str]] = {
    "pages": (".pages", "Pages"),
    "numbers": (".numbers", "Numbers"),
    "keynote": (".key", "Keynote"),
}
FORMAT_VERSION = 1
_CONTENT = "Index/Document.json"
_PROPERTIES = "Metadata/Properties.plist"
_STAMP = (2025, 1, 1, 0, 0, 0)  # member times: fixed, so equal documents are equal files


class IWorkFileError(ValueError):
    """A file that is not a readable sim iWork document (names the file and what is wrong)."""


def kind_of(path: Path) -> str | None:
    """The document kind a path's suffix names ("pages" | "numbers" | "keynote"), or None."""
    suffix = path.suffix.lower()
    return next((k for k, (s, _) in KINDS.items() if s == suffix), None)


def write_document(path: Path, kind: str, content: dict[str, Any]) -> None:
    """Write ``content`` (JSON-able) as a ``kind`` document at host path ``path``."""
    if kind not in KINDS:
        raise ValueError(f"unknown document kind {kind!r}; expected one of {', '.join(KINDS)}")
    body = json.dumps({"kind": kind, "format": FORMAT_VERSION, "content": content},
                      sort_keys=True, ensure_ascii=False, indent=1).encode("utf-8")
    doc_id = uuid.UUID(bytes=hashlib.sha256(body).digest()[:16], version=4)
    props = plistlib.dumps({"documentUUID": str(doc_id).upper(), "fileFormatVersion": f"sim-{FORMAT_VERSION}",
                            "isMultiPage": kind != "numbers", "revision": "0::sim"}, sort_keys=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in ((_PROPERTIES, props), (_CONTENT, body)):
            z.writestr(zipfile.ZipInfo(name, date_time=_STAMP), data)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buf.getvalue())


def read_document(path: Path, kind: str | None = None) -> dict[str, Any]:
    """The content of the document at host path ``path``; ``kind`` (if given) must match."""
    try:
        with zipfile.ZipFile(path) as z:
            data = json.loads(z.read(_CONTENT).decode("utf-8"))
    except FileNotFoundError:
        raise IWorkFileError(f"{path.name}: no such document") from None
    except (zipfile.BadZipFile, KeyError):
        raise IWorkFileError(f"{path.name}: not an iWork document (expected a zip archive with {_CONTENT})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise IWorkFileError(f"{path.name}: {_CONTENT} is not valid JSON ({e})") from None
    if not isinstance(data, dict) or data.get("kind") not in KINDS or not isinstance(data.get("content"), dict):
        raise IWorkFileError(f"{path.name}: {_CONTENT} must hold {{kind, format, content}}")
    if kind is not None and data["kind"] != kind:
        raise IWorkFileError(f"{path.name}: is a {KINDS[data['kind']][1]} document, expected {KINDS[kind][1]}")
    return data["content"]
