"""Image Events: macOS's faceless scripting front end to the same image engine as ``sips``
(``/System/Library/CoreServices/Image Events.app``). No window and no dock icon; launching it never
brings it to the front. Its AppleScript dictionary (the Image Suite) as on a Mac::

    tell application "Image Events"
        set img to open POSIX file "/Users/user/Pictures/photo.png"
        scale img to size 800            -- the longer side; or: scale img by factor 0.5
        rotate img to angle 90           -- clockwise, like sips -r
        flip img with horizontal         -- or with vertical
        crop img to dimensions {400, 300}
        pad img to dimensions {900, 900} with pad color {65535, 65535, 65535}
        save img as JPEG in POSIX file "/Users/user/Desktop/photo.jpg"
        dimensions of img                -- {w, h}; also resolution, file type, bit depth, color space, name
        close img
    end tell

Images are files in the home folder, read and written with Pillow through the same transforms and
encoders as the simulated ``sips`` (see :mod:`.media_images`).
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ....applescript import AppleScriptError
from ....applescript.model import STANDARD_COMMANDS, ObjectRef, ScriptableAppBase, Terminology
from ....applescript.values import Constant, FileRef
from mmenvs.core.budget import BudgetExceeded, EpisodeBudget, check_limit
from mmenvs.core.confined import ConfinementError
from ...base import BackendError
from .base import App
from .media_args import UsageError
from .media_images import read_image, sips_encode, sips_transform

if TYPE_CHECKING:  # pragma: no cover
    from ..desktop import Desktop

# Image Events' file type constants → sips format names (the ones the simulator writes)
_FILE_TYPES = {"JPEG": "jpeg", "PNG": "png", "TIFF": "tiff", "BMP": "bmp", "GIF": "gif"}
_OTHER_FILE_TYPES = ("JPEG2", "PSD", "PICT", "QuickTime Image", "SGI", "TGA", "MacPaint", "Photoshop", "PDF")
ERR_FILE_NOT_FOUND = -43
ERR_COERCION = -1700
ERR_PARAM = -50


class ImageEventsScripting(ScriptableAppBase):
    """The Image Suite over the app's open images (see the module docstring)."""

    def __init__(self, app: "ImageEventsApp") -> None:
        self.app = app
        self.name = "Image Events"
        cmds = dict(STANDARD_COMMANDS)
        cmds.update({"open": (), "close": ("saving",), "save": ("as", "in", "with icon", "PackBits"),
                     "scale": ("by factor", "to size"), "rotate": ("to angle",), "flip": (),
                     "crop": ("to dimensions",), "pad": ("to dimensions", "with pad color")})
        self.terminology = Terminology(
            classes={"image": "images"},
            properties=frozenset({"name", "dimensions", "resolution", "file type", "bit depth", "color space",
                                  "location", "image file", "version", "frontmost"}),
            commands=cmds,
            constants=frozenset({*_FILE_TYPES, *_OTHER_FILE_TYPES, "millions of colors", "millions of colors plus",
                                 "grayscale", "RGB", "Gray", "horizontal", "vertical"}))

    # ------------------------------------------------------------------ objects
    @property
    def _budget(self) -> EpisodeBudget:
        return self.app.desktop.backend.budget

    def _image(self, obj: Any) -> dict[str, Any]:
        if isinstance(obj, ObjectRef) and obj.cls == "image" and obj.id in self.app.images:
            return self.app.images[obj.id]
        raise AppleScriptError(f"Can’t get {self._show(obj)}.", -1728)

    def describe(self, obj: ObjectRef) -> str:
        rec = self.app.images.get(obj.id)
        return f'image "{rec["path"].name}" of application "Image Events"' if rec else super().describe(obj)

    def elements(self, container: ObjectRef | None, cls: str) -> list[ObjectRef]:
        if container is None and cls == "image":
            return [ObjectRef("image", i) for i in self.app.images]
        return super().elements(container, cls)

    def element_by_name(self, container: ObjectRef | None, cls: str, name: str) -> ObjectRef | None:
        if container is None and cls == "image":
            return next((ObjectRef("image", i) for i, r in self.app.images.items() if r["path"].name == name), None)
        return None

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is None:
            if prop == "version":
                return "1.1.6"
            return super().get_property(obj, prop)
        rec = self._image(obj)
        img = rec["image"]
        posix = self.app.desktop.backend.posix_path
        alpha = "A" in img.getbands() or "transparency" in img.info
        gray = img.mode in ("1", "L", "LA") or img.mode.startswith("I")
        values = {
            "name": rec["path"].name,
            "dimensions": [img.width, img.height],
            "resolution": [float(rec["dpi"][0]), float(rec["dpi"][1])],
            "file type": Constant(next((k for k, v in _FILE_TYPES.items() if v == rec["format"]), rec["format"].upper())),
            "bit depth": Constant("grayscale" if gray else ("millions of colors plus" if alpha else "millions of colors")),
            "color space": Constant("Gray" if gray else "RGB"),
            "location": FileRef(posix(rec["path"].parent) + "/", "alias"),
            "image file": FileRef(posix(rec["path"]), "file"),
        }
        if prop not in values:
            return super().get_property(obj, prop)
        return values[prop]

    # ------------------------------------------------------------------ commands
    def command(self, name: str, direct: Any, params: dict[str, Any]) -> Any:
        if name == "open":
            if isinstance(direct, list):
                return [self._open(d) for d in direct]
            return self._open(direct)
        if name == "close":
            for ref in direct if isinstance(direct, list) else [direct]:
                self._image(ref)
                if params.get("saving") in (True, Constant("yes")):
                    self._save(ref, None, None)
                del self.app.images[ref.id]
            return None
        if name == "save":
            return self._save(direct, params.get("as"), params.get("in"))
        if name in ("scale", "rotate", "flip", "crop", "pad"):
            for ref in direct if isinstance(direct, list) else [direct]:
                self._transform(name, ref, params)
            return None
        return super().command(name, direct, params)

    def _host(self, value: Any, what: str) -> Path:
        text = value.path if isinstance(value, FileRef) else value if isinstance(value, str) else None
        if text is None:
            raise AppleScriptError(f"Can’t make {self._show(value)} into type file.", ERR_COERCION)
        try:
            return self.app.desktop.backend.host_path(text)
        except BackendError:
            raise AppleScriptError(f"Image Events can only reach files in the home folder, not {what} “{text}”.",
                                   ERR_PARAM) from None

    def _open(self, target: Any) -> ObjectRef:
        path = self._host(target, "file")
        files = self.app.desktop.home_files
        if not files.is_file(path):
            raise AppleScriptError(f"The file “{path.name}” couldn’t be opened because there is no such file.",
                                   ERR_FILE_NOT_FOUND)
        try:
            img, fmt, dpi = read_image(files.read_bytes(path), self._budget.image_pixels)
        except BudgetExceeded as e:
            raise AppleScriptError(str(e), ERR_PARAM) from None
        except ConfinementError as e:
            raise AppleScriptError(e.strerror or str(e), ERR_PARAM) from None
        except Exception:  # noqa: BLE001 - Pillow raises many types for files it cannot read
            raise AppleScriptError(f"Can’t make file “{path.name}” into type image.", ERR_COERCION) from None
        held = sum(r["image"].width * r["image"].height for r in self.app.images.values())
        try:  # open images stay in host memory until closed: they share the image store's budget
            check_limit("image_store_pixels", self._budget.image_store_pixels, held + img.width * img.height,
                        "the images open in Image Events")
        except BudgetExceeded as e:
            raise AppleScriptError(f"{e} Close some with “close every image”.", ERR_PARAM) from None
        image_id = next(self.app.counter)
        self.app.images[image_id] = {"path": path, "image": img, "format": fmt, "dpi": (float(dpi[0]), float(dpi[1]))}
        return ObjectRef("image", image_id)

    def _transform(self, name: str, ref: Any, params: dict[str, Any]) -> None:
        rec = self._image(ref)
        try:
            if name == "scale":
                if "to size" in params:
                    args: tuple[str, list[str]] = ("resampleMax", [str(_int(params["to size"], "to size"))])
                elif "by factor" in params:
                    factor = _num(params["by factor"], "by factor")
                    if factor <= 0:
                        raise AppleScriptError(f"The scale factor must be positive, not {factor:g}.", ERR_PARAM)
                    w, h = rec["image"].size
                    longer = max(1, round(max(w, h) * factor))
                    args = ("resampleMax", [str(longer)])
                else:
                    raise AppleScriptError("Some parameter is missing for scale.", -1701)
            elif name == "rotate":
                if "to angle" not in params:
                    raise AppleScriptError("Some parameter is missing for rotate.", -1701)
                args = ("rotate", [str(_num(params["to angle"], "to angle"))])
            elif name == "flip":
                direction = "horizontal" if params.get("horizontal") is True else "vertical" if params.get("vertical") is True else None
                if direction is None:
                    raise AppleScriptError("Some parameter is missing for flip (with horizontal or with vertical).", -1701)
                args = ("flip", [direction])
            else:  # crop, pad
                dims = params.get("to dimensions")
                if not (isinstance(dims, list) and len(dims) == 2):
                    raise AppleScriptError(f"Can’t make {self._show(dims)} into type dimensions ({{width, height}}).", ERR_COERCION)
                w, h = _int(dims[0], "to dimensions"), _int(dims[1], "to dimensions")
                args = ("crop" if name == "crop" else "pad", [str(h), str(w)])
            color = "FFFFFF"
            if name == "pad" and "with pad color" in params:
                rgb = params["with pad color"]
                if not (isinstance(rgb, list) and len(rgb) == 3):
                    raise AppleScriptError(f"Can’t make {self._show(rgb)} into type RGB color.", ERR_COERCION)
                # 16-bit channels (0–65535) as AppleScript's RGB colors have them
                color = "".join(f"{max(0, min(255, int(_num(c, 'with pad color')) >> 8)):02X}" for c in rgb)
            rec["image"] = sips_transform(rec["image"], args[0], args[1], None, color, self._budget.image_pixels)
        except UsageError as e:
            raise AppleScriptError(e.text.strip().removeprefix("Error: "), ERR_PARAM) from None
        except BudgetExceeded as e:  # checked before the new image is made
            raise AppleScriptError(str(e), ERR_PARAM) from None

    def _save(self, ref: Any, as_type: Any, dest: Any) -> FileRef:
        rec = self._image(ref)
        fmt = rec["format"]
        if as_type is not None:
            type_name = as_type.name if isinstance(as_type, Constant) else str(as_type)
            match = next((k for k in _FILE_TYPES if k.lower() == type_name.lower()), None)
            if match is None:
                raise AppleScriptError(f"The simulator’s Image Events saves JPEG, PNG, TIFF, BMP and GIF, not {type_name}.",
                                       ERR_PARAM)
            fmt = _FILE_TYPES[match]
        path = rec["path"] if dest is None else self._host(dest, "file")
        files = self.app.desktop.home_files
        try:
            data = sips_encode(rec["image"], {"format": fmt, "formatOptions": "default", "dpi": rec["dpi"]})
            old = files.lstat(path).st_size if files.is_file(path) else 0
            check_limit("home_bytes", self._budget.home_bytes, files.disk_usage() - old + len(data),
                        f"saving {len(data):,} bytes of image into the home")
            files.write_bytes(path, data)
        except BudgetExceeded as e:
            raise AppleScriptError(str(e), ERR_PARAM) from None
        except OSError as e:
            raise AppleScriptError(f"Can’t save the image to “{path.name}”: {e.strerror}.", ERR_PARAM) from None
        if dest is None:  # saved over its own file: the image is now that format
            rec["format"] = fmt
        return FileRef(self.app.desktop.backend.posix_path(path), "alias")


def _num(value: Any, label: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise AppleScriptError(f"Can’t make {value!r} into type real ({label}).", ERR_COERCION) from None


def _int(value: Any, label: str) -> int:
    number = _num(value, label)
    if number != int(number) or number <= 0:
        raise AppleScriptError(f"{label} needs a positive whole number of pixels, not {number:g}.", ERR_PARAM)
    return int(number)


class ImageEventsApp(App):
    """Image Events: a background-only app with an AppleScript dictionary (no window, no dock icon)."""

    name = "Image Events"
    bundle_id = "com.apple.imageevents"
    in_dock = False
    text_editing = False
    background_only = True

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        # open images: id → {"path": host Path, "image": PIL image, "format": sips name, "dpi": (x, y)}
        self.images: dict[int, dict[str, Any]] = {}
        self.counter = itertools.count(1)
        self.scripting = ImageEventsScripting(self)

    def quit(self) -> None:
        self.images.clear()  # quitting Image Events closes its images without saving
        super().quit()

    def state(self) -> dict[str, Any]:
        """Whether it runs and the images it has open (name, POSIX path, dimensions, file type)."""
        posix = self.desktop.backend.posix_path if self.desktop.backend is not None else str
        return {"running": self.running,
                "images": [{"name": r["path"].name, "path": posix(r["path"]), "dimensions": list(r["image"].size),
                            "file type": r["format"]} for r in self.images.values()]}
