"""The Mac's command-line media tools, answered by the simulator: ``sips`` (images, on Pillow),
``afinfo`` and ``afconvert`` (linear-PCM WAVE/AIFF/AIFC audio, on numpy), and ``say`` (speech to an
audio file). They work on files in the episode's home folder, with the real tools' options, output
layout and error messages.

The file formats live in :mod:`mmenvs.macagent.formats.audio` (shared with the task files), the ``say`` signal in :mod:`.media_speech`, the
image operations (shared with Image Events) in :mod:`.media_images` and the usage error in
:mod:`.media_args`.

The shell's ``python3`` is the interpreter mmenvs runs on, so numpy, matplotlib and Pillow import
in the episode's shell (the paper's Mac had them installed for its multimedia tasks).
"""

from __future__ import annotations

import errno
import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import numpy as np

from mmenvs.core.budget import BudgetExceeded, check_limit, current_deadline
from mmenvs.core.confined import ConfinedDir, ConfinementError
from mmenvs.core.offload import run_in_child

from ...base import BackendError

from .base import App, CommandContext
from .media_args import UsageError, number_arg
from mmenvs.macagent.formats.audio import (DATA_FORMATS, EXT_TYPES, FILE_TYPES, OTHER_EXTS, OTHER_TYPES, AudioError, AudioFormat,
                                           container_accepts, read_audio, resample, write_audio)
from .media_images import IMAGE_FORMATS, JPEG_QUALITY, SIPS_PROPERTIES, read_image, sips_encode, sips_property, sips_transform
from .media_speech import DEFAULT_RATE, DEFAULT_VOICE, SAY_RATE, VOICES, speech_samples

_SIPS_OTHER_FORMATS = {"jp2", "pict", "qtif", "psd", "sgi", "tga", "heic", "pdf", "ico", "icns", "exr", "astc", "ktx"}
_SIPS_USAGE = """sips - scriptable image processing system.
This tool is used to query or modify raster image files and ColorSync ICC profiles.
Its functionality can also be used through the "Image Events" AppleScript suite.

  Usages:
    sips [image-functions] imagefile ...
    sips [profile-functions] profile ...

  Image query functions:
    -g, --getProperty key
    -1, --oneLine
  Image modification functions:
    -s, --setProperty key value        (format png|jpeg|tiff|bmp|gif, formatOptions, dpiWidth, dpiHeight)
    -r, --rotate degreesCW
    -f, --flip horizontal|vertical
    -c, --cropToHeightWidth pixelsH pixelsW
        --cropOffset offsetY offsetH
    -p, --padToHeightWidth pixelsH pixelsW
        --padColor hexcolor
    -z, --resampleHeightWidth pixelsH pixelsW
        --resampleWidth pixelsW
        --resampleHeight pixelsH
    -Z, --resampleHeightWidthMax pixelsWH
    -o, --out file-or-directory
"""
_SIPS_NO_FILE = "Error 4: no file was specified\nTry 'sips --help' for help using this tool\n"
# option → (canonical name, number of arguments)
_SIPS_OPTIONS = {
    "-g": ("getProperty", 1), "--getProperty": ("getProperty", 1),
    "-s": ("setProperty", 2), "--setProperty": ("setProperty", 2),
    "-r": ("rotate", 1), "--rotate": ("rotate", 1),
    "-f": ("flip", 1), "--flip": ("flip", 1),
    "-c": ("crop", 2), "--cropToHeightWidth": ("crop", 2), "--cropOffset": ("cropOffset", 2),
    "-p": ("pad", 2), "--padToHeightWidth": ("pad", 2), "--padColor": ("padColor", 1),
    "-z": ("resample", 2), "--resampleHeightWidth": ("resample", 2),
    "--resampleWidth": ("resampleWidth", 1), "--resampleHeight": ("resampleHeight", 1),
    "-Z": ("resampleMax", 1), "--resampleHeightWidthMax": ("resampleMax", 1),
    "-o": ("out", 1), "--out": ("out", 1),
    "-1": ("oneLine", 0), "--oneLine": ("oneLine", 0),
    "--debug": ("debug", 0),
}


def home_files(ctx: CommandContext) -> ConfinedDir:
    """The episode home's confined layer: the tools read and write files only through it."""
    return ctx.backend.current_desktop().home_files


def _write(ctx: CommandContext, dest: Path, data: bytes) -> None:
    """Write a tool's output file, within the home's byte budget (checked before the write)."""
    files = home_files(ctx)
    try:
        old = files.lstat(dest).st_size if files.is_file(dest) else 0
    except OSError:
        old = 0
    used = files.disk_usage()
    check_limit("home_bytes", ctx.backend.budget.home_bytes, used - old + len(data),
                f"{ctx.posix(dest)}: writing {len(data):,} bytes into the home")
    try:
        files.write_bytes(dest, data)
    except ConfinementError as e:
        if e.errno in (errno.ENOENT, errno.EISDIR) and "symbolic link" not in str(e):
            # an ordinary missing folder: the tool's own message (the real path as the agent knows it)
            raise OSError(e.errno, os.strerror(e.errno), str(dest)) from None
        raise


class MediaTools(App):
    """``sips``, ``afinfo``, ``afconvert`` and ``say`` (see the module docstring). No window, no state."""

    name = "Media Tools"
    bundle_id = "com.apple.mediatools"
    in_dock = False
    text_editing = False
    # say reads its text from stdin when given none on the command line
    shell_commands = {"sips": False, "afinfo": False, "afconvert": False, "say": True}
    # the shell's python3 (and scripts it runs) is mmenvs' own interpreter: numpy, matplotlib, Pillow
    # (sys.executable as it is, not its realpath: in a virtualenv the link is what finds the venv)
    shell_init = f"python3() {{ {shlex.quote(sys.executable)} \"$@\"; }}\nexport -f python3\n"

    def state(self) -> dict[str, Any]:
        """The tools keep no state: their results are files."""
        return {"running": False}

    def run_command(self, argv: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        """Run one of the tools; a command-line error comes back as the tool's message and status."""
        tool = {"sips": self._sips, "afinfo": self._afinfo, "afconvert": self._afconvert, "say": self._say}[argv[0]]
        budget = ctx.backend.budget
        deadline = current_deadline() or budget.deadline()
        try:
            # in a short-lived child: decoding a photo or synthesising audio takes tens of megabytes for
            # a moment, which the env process would otherwise keep (the tools only read and write files).
            # The child works under the action's deadline and may map at most child_memory_bytes more.
            return run_in_child(tool, argv[1:], stdin, ctx, timeout=max(0.05, deadline.remaining()),
                                memory_bytes=budget.child_memory_bytes)
        except UsageError as e:
            return "", e.text, e.code
        except BudgetExceeded as e:  # an image or a text over the episode budget, refused before the work
            return "", f"{argv[0]}: {e}\n", 1
        except TimeoutError:
            return "", (f"{argv[0]}: stopped: it ran past the action deadline action_timeout={budget.action_timeout:g} s "
                        "(the episode budget)\n"), 1
        except MemoryError:
            return "", (f"{argv[0]}: out of memory: the work needs more than the episode budget "
                        f"child_memory_bytes={budget.child_memory_bytes:,}\n"), 1
        except ConfinementError as e:  # a symlink, a FIFO, a device or an oversized file in the home: refused
            return "", f"{argv[0]}: {e.strerror or e}\n", 1
        except OSError as e:  # a folder that does not exist, a name that is a folder, …
            where = ctx.posix(Path(e.filename)) if e.filename else ""
            return "", f"{argv[0]}: {where}: {e.strerror or e}\n", 1

    # ------------------------------------------------------------------ paths
    @staticmethod
    def _path(ctx: CommandContext, text: str, tool: str) -> Path:
        try:
            return ctx.resolve(text)
        except BackendError:
            raise UsageError(f"{tool}: {text}: the simulator's media tools work on files in the home folder "
                             f"({ctx.backend.posix_home})\n") from None

    # ------------------------------------------------------------------ sips
    def _sips(self, args: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        if not args or args[0] in ("-h", "--help", "-H", "--helpProperties"):
            return _SIPS_USAGE, "", 0 if args else 1
        actions: list[tuple[str, list[str]]] = []
        files: list[str] = []
        i = 0
        while i < len(args):
            a = args[i]
            if a in _SIPS_OPTIONS:
                name, n = _SIPS_OPTIONS[a]
                if len(args) - (i + 1) < n:
                    raise UsageError(f"Error: {a} requires {n} argument{'s' if n > 1 else ''}\n"
                                     "Try 'sips --help' for help using this tool\n")
                actions.append((name, args[i + 1:i + 1 + n]))
                i += 1 + n
            elif a.startswith("-") and len(a) > 1:
                raise UsageError(f"Error: unknown option: {a}\nTry 'sips --help' for help using this tool\n")
            else:
                files.append(a)
                i += 1
        out_opt = [v[0] for k, v in actions if k == "out"]
        one_line = any(k == "oneLine" for k, _ in actions)
        valid: list[tuple[str, Path]] = []
        warnings = ""
        layer = home_files(ctx)
        budget = ctx.backend.budget
        for f in files:
            p = self._path(ctx, f, "sips")
            if not layer.is_file(p):
                warnings += f"Warning: {f} not a valid file - skipping\n"
                continue
            valid.append((f, p))
        if not valid:
            return "", warnings + _SIPS_NO_FILE, 13
        out_dir: Path | None = None
        out_file: Path | None = None
        if out_opt:
            target = self._path(ctx, out_opt[-1], "sips")
            if layer.is_dir(target):
                out_dir = target
            elif len(valid) > 1:
                raise UsageError(f"Error: --out {out_opt[-1]} must be a directory when several files are given\n")
            else:
                out_file = target
        stdout, stderr, code = "", warnings, 0
        for shown, p in valid:
            try:
                img, fmt, dpi = read_image(layer.read_bytes(p), budget.image_pixels)
            except (BudgetExceeded, ConfinementError):
                raise
            except Exception:  # noqa: BLE001 - Pillow raises many types for files it cannot read
                stderr += f"Warning: {shown} not a valid file - skipping\n"
                code = 13
                continue
            state = {"format": fmt, "formatOptions": "default", "dpi": (float(dpi[0]), float(dpi[1]))}
            modified = False
            lines: list[str] = []
            crop_offset: tuple[int, int] | None = None
            pad_color = "FFFFFF"
            for name, vals in actions:
                if name == "cropOffset":
                    crop_offset = (int(number_arg(vals[0], "--cropOffset")), int(number_arg(vals[1], "--cropOffset")))
                elif name == "padColor":
                    if not re.fullmatch(r"[0-9A-Fa-f]{6}", vals[0]):
                        raise UsageError(f"Error: --padColor needs a hex colour like FFFFFF, got {vals[0]!r}\n")
                    pad_color = vals[0]
            for name, vals in actions:
                if name == "getProperty":
                    keys = SIPS_PROPERTIES if vals[0] == "all" else (vals[0],)
                    for key in keys:
                        value = sips_property(img, key, state)
                        if value is None:
                            stderr += f"Warning: unknown property: {key} (known: {', '.join(SIPS_PROPERTIES)}, all)\n"
                            continue
                        lines.append(f"{key}: {value}")
                elif name == "setProperty":
                    self._sips_set(vals, state)
                    modified = True
                elif name in ("rotate", "flip", "crop", "pad", "resample", "resampleWidth", "resampleHeight", "resampleMax"):
                    img = sips_transform(img, name, vals, crop_offset, pad_color, budget.image_pixels)
                    modified = True
            path_text = ctx.posix(p)
            if lines:
                stdout += path_text + ("|" + "|".join(lines) if one_line else "".join(f"\n  {x}" for x in lines)) + "\n"
            if modified or out_file is not None or out_dir is not None:
                dest = out_file or ((out_dir / p.name) if out_dir is not None else p)
                try:
                    ctx.backend.check_in_home(dest)
                except BackendError:
                    raise UsageError(f"sips: {ctx.posix(dest)}: the simulator's media tools work on files in the home folder\n") from None
                _write(ctx, dest, sips_encode(img, state))
                if not lines:
                    stdout += path_text + "\n"
                stdout += f"  {ctx.posix(dest)}\n"
        return stdout, stderr, code

    @staticmethod
    def _sips_set(vals: list[str], state: dict[str, Any]) -> None:
        key, value = vals
        if key == "format":
            v = value.lower()
            v = "jpeg" if v == "jpg" else ("tiff" if v == "tif" else v)
            if v in _SIPS_OTHER_FORMATS:
                raise UsageError(f"Error: the simulator's sips writes png, jpeg, tiff, bmp and gif, not {value}\n")
            if v not in IMAGE_FORMATS:
                raise UsageError(f"Error: Unknown format: {value} (use png, jpeg, tiff, bmp or gif)\n")
            state["format"] = v
        elif key == "formatOptions":
            if value.lower() not in JPEG_QUALITY and not re.fullmatch(r"\d{1,3}%?", value):
                raise UsageError(f"Error: formatOptions must be low, normal, high, best or a percentage, got {value!r}\n")
            state["formatOptions"] = value.lower()
        elif key in ("dpiWidth", "dpiHeight"):
            d = number_arg(value, key)
            state["dpi"] = (d, state["dpi"][1]) if key == "dpiWidth" else (state["dpi"][0], d)
        else:
            raise UsageError(f"Error: the simulator's sips sets format, formatOptions, dpiWidth and dpiHeight, not {key}\n")

    # ------------------------------------------------------------------ afinfo
    def _afinfo(self, args: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        files = [a for a in args if not a.startswith("-")]
        if not files:
            return "", ("Audio File Info\nVersion: 2.0\nCopyright 2003-2016, Apple Inc. All Rights Reserved.\n\n"
                        "Usage: afinfo [option...] audio_file(s)\n"), 1
        out, err, code = "", "", 0
        for f in files:
            p = self._path(ctx, f, "afinfo")
            try:
                audio = read_audio(home_files(ctx).read_bytes(p))
            except (OSError, AudioError):
                err += f"AudioFileOpen failed ('{'typ?' if home_files(ctx).is_file(p) else 'wht?'}')\n"
                code = 1
                continue
            frame = audio.channels * audio.fmt.frame_bytes
            nbytes = audio.frames * frame
            out += (f"File:           {f}\n"
                    f"File type ID:   {audio.file_type}\n"
                    "Num Tracks:     1\n----\n"
                    f"Data format:    {audio.channels:2d} ch, {audio.rate:6.0f} Hz, {audio.fmt.describe()}\n"
                    "                no channel layout.\n"
                    f"estimated duration: {audio.duration:.6f} sec\n"
                    f"audio bytes: {nbytes}\n"
                    f"audio packets: {audio.frames}\n"
                    f"bit rate: {int(round(audio.rate)) * frame * 8} bits per second\n"
                    f"packet size upper bound: {frame}\n"
                    f"maximum packet size: {frame}\n"
                    f"audio data file offset: {audio.data_offset}\n"
                    "optimized\n"
                    f"source bit depth: {audio.fmt.bit_depth()}\n----\n")
        return out, err, code

    # ------------------------------------------------------------------ afconvert
    def _afconvert(self, args: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        file_type = data_format = None
        rate: float | None = None
        channels: int | None = None
        files: list[str] = []
        i = 0
        while i < len(args):
            a = args[i]
            if a in ("-f", "--file", "-d", "--data", "-c", "--channels"):
                if i + 1 >= len(args):
                    raise UsageError(f"afconvert: option {a} needs a value\n")
                v = args[i + 1]
                if a in ("-f", "--file"):
                    file_type = v
                elif a in ("-d", "--data"):
                    data_format, _, r = v.partition("@")
                    if r:
                        rate = number_arg(r, "-d @rate")
                else:
                    channels = int(number_arg(v, "-c"))
                i += 2
            elif a in ("-r", "--src-quality", "-q", "--quality", "-b", "--bitrate", "-s", "--strategy", "--src-complexity"):
                i += 2  # encoder settings: nothing to do for linear PCM
            elif a in ("-v", "--verbose"):
                i += 1
            elif a in ("-h", "--help"):
                return _AFCONVERT_USAGE, "", 0
            elif a.startswith("-") and len(a) > 1:
                raise UsageError(f"afconvert: unknown option: {a}\n{_AFCONVERT_USAGE}")
            else:
                files.append(a)
                i += 1
        if not files:
            return "", _AFCONVERT_USAGE, 1
        if len(files) > 2:
            raise UsageError(f"afconvert: too many file arguments: {' '.join(files[2:])}\n")
        src = self._path(ctx, files[0], "afconvert")
        if not home_files(ctx).is_file(src):
            return "", f"Input file: {files[0]}, 0 frames\nError: ExtAudioFileOpenURL failed ('wht?')\n", 1
        try:
            audio = read_audio(home_files(ctx).read_bytes(src))
        except AudioError:
            return "", "Error: ExtAudioFileOpenURL failed ('typ?')\n", 1
        if file_type is None:
            if len(files) < 2:
                file_type = audio.file_type
            else:
                ext = Path(files[1]).suffix.lower()
                file_type = EXT_TYPES.get(ext)
                if file_type is None:
                    if ext in OTHER_EXTS:
                        raise UsageError(f"afconvert: the simulator writes WAVE, AIFF and AIFC files, not {ext}\n")
                    raise UsageError(f"afconvert: can't determine the file type of {files[1]}; give one with -f (WAVE, AIFF, AIFC)\n")
        if file_type not in FILE_TYPES:
            if file_type in OTHER_TYPES:
                raise UsageError(f"afconvert: the simulator writes WAVE, AIFF and AIFC files, not {file_type}\n")
            raise UsageError(f"Error: unknown file type '{file_type}' (use WAVE, AIFF or AIFC)\n")
        if data_format is None or data_format in ("", "0"):
            fmt = audio.fmt
            if not container_accepts(file_type, fmt):  # the same samples in the container's byte order
                fmt = AudioFormat(fmt.kind, fmt.bits, file_type != "WAVE")
                if not container_accepts(file_type, fmt):
                    fmt = AudioFormat("int", 16, file_type != "WAVE")
        elif data_format in DATA_FORMATS:
            fmt = AudioFormat(*DATA_FORMATS[data_format])
        elif data_format in ("aac", "alac", "ulaw", "alaw", "ima4", "mp3", ".mp3", "opus", "flac", "aach"):
            raise UsageError(f"afconvert: the simulator writes linear PCM only (LEI16, BEI16, LEF32, …), not {data_format}\n")
        else:
            raise UsageError(f"Error: unknown data format '{data_format}' (e.g. LEI16, BEI16, LEI24, LEF32, BEF32)\n")
        if not container_accepts(file_type, fmt):
            return "", "Error: ExtAudioFileCreateWithURL failed ('fmt?')\n", 1
        samples = audio.samples
        if channels is not None:
            if channels < 1 or channels > 8:
                raise UsageError(f"afconvert: -c needs 1 to 8 channels, got {channels}\n")
            if channels != audio.channels:
                mono = samples.mean(axis=1, keepdims=True)
                samples = np.repeat(mono, channels, axis=1) if channels > 1 or audio.channels > 1 else mono
        out_rate = float(rate) if rate else audio.rate
        if out_rate <= 0:
            raise UsageError(f"afconvert: the sample rate must be positive, got {out_rate:g}\n")
        if abs(out_rate - audio.rate) > 1e-6:
            samples = resample(samples, audio.rate, out_rate)
        dest_text = files[1] if len(files) > 1 else str(Path(files[0]).with_suffix(FILE_TYPES[file_type]))
        dest = self._path(ctx, dest_text, "afconvert")
        _write(ctx, dest, write_audio(file_type, out_rate, fmt, samples))
        return "", "", 0

    # ------------------------------------------------------------------ say
    def _say(self, args: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        voice, rate, out_file, in_file = DEFAULT_VOICE, DEFAULT_RATE, None, None
        file_format = data_format = None
        words: list[str] = []
        i = 0
        while i < len(args):
            a = args[i]
            key, eq, inline = a.partition("=")
            if a in ("-v", "--voice", "-r", "--rate", "-o", "--output-file", "-f", "--input-file") or (
                    eq and key in ("--voice", "--rate", "--output-file", "--input-file", "--file-format", "--data-format")):
                if eq:
                    value, step = inline, 1
                elif i + 1 < len(args):
                    value, step = args[i + 1], 2
                else:
                    raise UsageError(f"say: option requires an argument -- {a.lstrip('-')[:1]}\n")
                k = key if eq else a
                if k in ("-v", "--voice"):
                    voice = value
                elif k in ("-r", "--rate"):
                    rate = number_arg(value, "-r")
                elif k in ("-o", "--output-file"):
                    out_file = value
                elif k in ("-f", "--input-file"):
                    in_file = value
                elif k == "--file-format":
                    file_format = value
                else:
                    data_format = value
                i += step
            elif a in ("--file-format", "--data-format"):
                if i + 1 >= len(args):
                    raise UsageError(f"say: option {a} requires an argument\n")
                if a == "--file-format":
                    file_format = args[i + 1]
                else:
                    data_format = args[i + 1]
                i += 2
            elif a in ("-i", "--interactive", "--progress") or a.startswith("--interactive="):
                i += 1
            elif a.startswith("-") and len(a) > 1 and a != "--":
                raise UsageError(f"say: illegal option -- {a.lstrip('-')[:1]}\n")
            else:
                words.extend(args[i + 1:] if a == "--" else [a])
                if a == "--":
                    break
                i += 1
        if voice == "?":
            return "".join(f"{n:<20}{loc:<9}# {sample}\n" for n, (loc, _, sample) in sorted(VOICES.items())), "", 0
        match = [n for n in VOICES if n.lower() == voice.lower()]
        if not match:
            return "", f"Voice `{voice}' not found.\n", 1
        voice = match[0]
        if rate <= 0:
            raise UsageError(f"say: the rate must be a positive number of words per minute, got {rate:g}\n")
        if in_file is not None:
            if in_file == "-":
                text = stdin
            else:
                p = self._path(ctx, in_file, "say")
                if not home_files(ctx).is_file(p):
                    return "", f"Error reading input file {in_file}.\n", 1
                # at most 4 bytes a character: a larger file cannot be within the text budget
                limit = 4 * ctx.backend.budget.speech_chars + 4
                size = home_files(ctx).lstat(p).st_size
                if size > limit:
                    check_limit("speech_chars", ctx.backend.budget.speech_chars, size, f"say: a text file of {size:,} bytes")
                text = home_files(ctx).read_bytes(p, limit=limit).decode("utf-8", errors="replace")
        else:
            text = " ".join(words) if words else stdin
        check_limit("speech_chars", ctx.backend.budget.speech_chars, len(text), f"say: a text of {len(text):,} characters")
        samples = speech_samples(text, voice, rate)
        if out_file is None:
            return "", "", 0  # spoken aloud: the simulated Mac has no speakers to hear it on
        ext = Path(out_file).suffix.lower()
        ftype = file_format or EXT_TYPES.get(ext) or ("AIFF" if ext == "" else None)
        if ftype is None or ftype not in FILE_TYPES:
            if ftype in OTHER_TYPES or ext in OTHER_EXTS:
                raise UsageError(f"say: the simulator writes AIFF, AIFC and WAVE files, not {ftype or ext}\n")
            return "", "Opening output file failed: fmt?\n", 1
        out_rate = float(SAY_RATE)
        if data_format is not None:
            name, _, r = data_format.partition("@")
            if name not in DATA_FORMATS:
                return "", "Opening output file failed: fmt?\n", 1
            fmt = AudioFormat(*DATA_FORMATS[name])
            if r:
                out_rate = number_arg(r, "--data-format @rate")
        elif ftype == "WAVE":
            return "", "Opening output file failed: fmt?\n", 1  # as on a Mac: WAVE needs --data-format
        else:
            fmt = AudioFormat("int", 16, True)
        if not container_accepts(ftype, fmt):
            return "", "Opening output file failed: fmt?\n", 1
        if abs(out_rate - SAY_RATE) > 1e-6:
            samples = resample(samples[:, None], SAY_RATE, out_rate)[:, 0]
        dest = self._path(ctx, out_file if ext or file_format else out_file + ".aiff", "say")
        _write(ctx, dest, write_audio(ftype, out_rate, fmt, samples[:, None]))
        return "", "", 0


_AFCONVERT_USAGE = """Audio File Convert
Version: 2.0
Copyright 2003-2016, Apple Inc. All Rights Reserved.

Usage:
afconvert [option...] input_file [output_file]
    Options: (may appear before or after arguments)
    { -f | --file } file_format:  WAVE, AIFF or AIFC in the simulator
    { -d | --data } data_format[@sample_rate]:  LEI16, BEI16, LEI24, BEI24, LEI32, BEI32, LEF32, BEF32, LEF64, BEF64, UI8
    { -c | --channels } number_of_channels
    If the output file is omitted, it is the input file's name with the new type's extension.
"""
