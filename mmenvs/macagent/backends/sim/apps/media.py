"""The Mac's command-line media tools, answered by the simulator: ``sips`` (images, on Pillow),
``afinfo`` and ``afconvert`` (linear-PCM WAVE/AIFF/AIFC audio, on numpy), and ``say`` (speech to an
audio file). They work on files in the episode's home folder, with the real tools' options, output
layout and error messages.

``say`` has no speech model behind it: it writes a deterministic *speech-like* signal — one voiced
tone burst per syllable at the voice's pitch, with pauses between words and at punctuation — whose
duration follows the text and the speaking rate the way real speech does (about ``rate`` words a
minute). The file is a valid AIFF/WAVE with the real tool's defaults (22.05 kHz, mono, 16-bit), so
``afinfo``, ``afconvert``, Python and ffmpeg read it like any recording; it is not intelligible
speech, and no speech-to-text exists in the simulator.

The shell's ``python3`` is the interpreter mmenvs runs on, so numpy, matplotlib and Pillow import
in the episode's shell (the paper's Mac had them installed for its multimedia tasks).
"""

from __future__ import annotations

import io
import math
import re
import shlex
import struct
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mmenvs.core.offload import run_in_child

from ...base import BackendError

from .base import App, CommandContext

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

# ================================================================================================ audio

# afconvert's data-format names → (sample kind, bits, big-endian)
DATA_FORMATS: dict[str, tuple[str, int, bool]] = {
    "UI8": ("uint", 8, False), "I8": ("int", 8, True),
    "LEI16": ("int", 16, False), "BEI16": ("int", 16, True), "LEI24": ("int", 24, False), "BEI24": ("int", 24, True),
    "LEI32": ("int", 32, False), "BEI32": ("int", 32, True), "LEF32": ("float", 32, False), "BEF32": ("float", 32, True),
    "LEF64": ("float", 64, False), "BEF64": ("float", 64, True),
}
# file-format ids (afconvert -f, say --file-format) → the extension a file of that type gets
_FILE_TYPES = {"WAVE": ".wav", "AIFF": ".aiff", "AIFC": ".aifc"}
_EXT_TYPES = {".wav": "WAVE", ".wave": "WAVE", ".aif": "AIFF", ".aiff": "AIFF", ".aifc": "AIFC"}
# formats the real tools know but the simulator does not write (asked for, they get a clear error)
_OTHER_TYPES = {"caff", "m4af", "m4bf", "mp4f", "adts", "ac-3", "3gpp", "3gp2", "MPG3", "NeXT", "Sd2f", "W64f", "RF64"}
_OTHER_EXTS = {".caf", ".m4a", ".m4b", ".mp4", ".aac", ".mp3", ".ac3", ".3gp", ".au", ".snd"}


@dataclass
class AudioFormat:
    """How samples are stored: ``kind`` int/uint/float, ``bits``, ``big_endian``."""

    kind: str
    bits: int
    big_endian: bool

    @property
    def frame_bytes(self) -> int:
        return self.bits // 8

    def numpy_dtype(self) -> np.dtype:
        order = ">" if self.big_endian else "<"
        if self.kind == "float":
            return np.dtype(f"{order}f{self.bits // 8}")
        if self.kind == "uint":
            return np.dtype("u1")
        return np.dtype(f"{order}i{self.bits // 8}")

    def describe(self) -> str:
        """afinfo's description of a linear-PCM format (flag bits as in CoreAudio's ASBD)."""
        flags = 0x8  # packed
        if self.kind == "float":
            flags |= 0x1
        elif self.kind == "int":
            flags |= 0x4
        if self.big_endian and self.bits > 8:
            flags |= 0x2
        if self.kind == "float":
            what = "floating point"
        elif self.kind == "uint":
            what = "unsigned integer"
        else:
            what = "signed integer"
        endian = "" if self.bits == 8 else ("big-endian " if self.big_endian else "little-endian ")
        return f"'lpcm' (0x{flags:08X}) {self.bits}-bit {endian}{what}"

    def bit_depth(self) -> str:
        return f"{'F' if self.kind == 'float' else 'I'}{self.bits}"


@dataclass
class AudioFile:
    """A decoded linear-PCM file: ``samples`` is float64 (frames, channels) in [-1, 1]."""

    file_type: str  # WAVE | AIFF | AIFC
    rate: float
    fmt: AudioFormat
    samples: np.ndarray
    data_offset: int = 0

    @property
    def channels(self) -> int:
        return int(self.samples.shape[1])

    @property
    def frames(self) -> int:
        return int(self.samples.shape[0])

    @property
    def duration(self) -> float:
        return self.frames / self.rate if self.rate else 0.0


class AudioError(ValueError):
    """A file that is not linear-PCM WAVE/AIFF/AIFC (the message says what was found)."""


def _decode(raw: bytes, fmt: AudioFormat, channels: int) -> np.ndarray:
    width = fmt.frame_bytes
    usable = len(raw) - len(raw) % (width * channels)
    raw = raw[:usable]
    if fmt.bits == 24:
        b = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3)
        if fmt.big_endian:
            b = b[:, ::-1]
        v = (b[:, 0].astype(np.int32) | (b[:, 1].astype(np.int32) << 8) | (b[:, 2].astype(np.int32) << 16))
        v = np.where(v >= 1 << 23, v - (1 << 24), v)
        x = v / float(1 << 23)
    else:
        a = np.frombuffer(raw, dtype=fmt.numpy_dtype())
        if fmt.kind == "float":
            x = a.astype(np.float64)
        elif fmt.kind == "uint":
            x = (a.astype(np.float64) - 128.0) / 128.0
        else:
            x = a.astype(np.float64) / float(1 << (fmt.bits - 1))
    return x.reshape(-1, channels)


def _encode(samples: np.ndarray, fmt: AudioFormat) -> bytes:
    x = np.clip(np.asarray(samples, dtype=np.float64).reshape(-1), -1.0, 1.0)
    if fmt.kind == "float":
        return x.astype(fmt.numpy_dtype()).tobytes()
    if fmt.kind == "uint":
        return np.clip(np.round(x * 128.0 + 128.0), 0, 255).astype(np.uint8).tobytes()
    top = (1 << (fmt.bits - 1)) - 1
    v = np.clip(np.round(x * (top + 1)), -(top + 1), top).astype(np.int64)
    if fmt.bits == 24:
        v = np.where(v < 0, v + (1 << 24), v).astype(np.uint32)
        b = np.stack([v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF], axis=1).astype(np.uint8)
        if fmt.big_endian:
            b = b[:, ::-1]
        return b.tobytes()
    return v.astype(fmt.numpy_dtype()).tobytes()


def _ieee_extended(value: float) -> bytes:
    """An 80-bit IEEE 754 extended float (AIFF's sample rate)."""
    if value <= 0:
        return b"\x00" * 10
    mantissa, exponent = math.frexp(value)  # value = mantissa * 2**exponent, 0.5 <= mantissa < 1
    return struct.pack(">HQ", exponent - 1 + 16383, int(mantissa * (1 << 64)))


def _from_extended(data: bytes) -> float:
    exp, mant = struct.unpack(">HQ", data)
    sign = -1.0 if exp & 0x8000 else 1.0
    exp &= 0x7FFF
    if exp == 0 and mant == 0:
        return 0.0
    return sign * mant * 2.0 ** (exp - 16383 - 63)


def read_audio(data: bytes) -> AudioFile:
    """Decode a linear-PCM WAVE, AIFF or AIFC file."""
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return _read_wave(data)
    if len(data) >= 12 and data[:4] == b"FORM" and data[8:12] in (b"AIFF", b"AIFC"):
        return _read_aiff(data)
    raise AudioError("not a WAVE, AIFF or AIFC file")


def _chunks(data: bytes, start: int, big_endian: bool) -> list[tuple[bytes, int, int]]:
    out, pos = [], start
    while pos + 8 <= len(data):
        cid = data[pos:pos + 4]
        size = struct.unpack(">I" if big_endian else "<I", data[pos + 4:pos + 8])[0]
        out.append((cid, pos + 8, min(size, len(data) - pos - 8)))
        pos += 8 + size + (size & 1)
    return out


def _format_and_sound(data: bytes, big_endian: bool, format_id: bytes, sound_id: bytes, min_format: int,
                      missing: str) -> tuple[bytes, tuple[int, int]]:
    """A WAVE/AIFF file's format chunk (its bytes) and sound chunk (offset, size), the last of each;
    ``AudioError(missing)`` when one is absent or the format chunk is shorter than ``min_format``."""
    format_chunk = sound_chunk = None
    for cid, off, size in _chunks(data, 12, big_endian):
        if cid == format_id:
            format_chunk = data[off:off + size]
        elif cid == sound_id:
            sound_chunk = (off, size)
    if format_chunk is None or sound_chunk is None or len(format_chunk) < min_format:
        raise AudioError(missing)
    return format_chunk, sound_chunk


def _read_wave(data: bytes) -> AudioFile:
    fmt_chunk, data_chunk = _format_and_sound(data, False, b"fmt ", b"data", 16,
                                              "WAVE file without a 'fmt ' and a 'data' chunk")
    tag, channels, rate, _, _, bits = struct.unpack("<HHIIHH", fmt_chunk[:16])
    if tag == 0xFFFE and len(fmt_chunk) >= 26:
        tag = struct.unpack("<H", fmt_chunk[24:26])[0]  # the subformat GUID starts with the format tag
    if tag not in (1, 3) or channels < 1 or bits not in (8, 16, 24, 32, 64):
        raise AudioError(f"WAVE data format {tag} with {bits}-bit samples is not linear PCM")
    kind = "float" if tag == 3 else ("uint" if bits == 8 else "int")
    fmt = AudioFormat(kind, bits, False)
    off, size = data_chunk
    return AudioFile("WAVE", float(rate), fmt, _decode(data[off:off + size], fmt, channels), off)


def _read_aiff(data: bytes) -> AudioFile:
    aifc = data[8:12] == b"AIFC"
    comm, ssnd = _format_and_sound(data, True, b"COMM", b"SSND", 18, "AIFF file without a 'COMM' and an 'SSND' chunk")
    channels, frames, bits = struct.unpack(">hIh", comm[:8])
    rate = _from_extended(comm[8:18])
    compression = comm[18:22] if aifc and len(comm) >= 22 else b"NONE"
    if compression == b"NONE":
        fmt = AudioFormat("int", bits, True)
    elif compression == b"sowt":
        fmt = AudioFormat("int", bits, False)
    elif compression in (b"fl32", b"FL32"):
        fmt = AudioFormat("float", 32, True)
    elif compression in (b"fl64", b"FL64"):
        fmt = AudioFormat("float", 64, True)
    else:
        raise AudioError(f"AIFC compression {compression.decode('latin-1')!r} is not linear PCM")
    if channels < 1 or fmt.bits not in (8, 16, 24, 32, 64):
        raise AudioError(f"AIFF with {channels} channels of {bits}-bit samples")
    off, size = ssnd
    skip = struct.unpack(">I", data[off:off + 4])[0] if size >= 8 else 0
    start = off + 8 + skip
    raw = data[start:start + min(size - 8 - skip, frames * channels * fmt.frame_bytes)]
    return AudioFile("AIFC" if aifc else "AIFF", rate, fmt, _decode(raw, fmt, channels), start)


def write_audio(file_type: str, rate: float, fmt: AudioFormat, samples: np.ndarray) -> bytes:
    """Encode ``samples`` (frames, channels) as a WAVE, AIFF or AIFC file (deterministic bytes)."""
    samples = np.asarray(samples, dtype=np.float64)
    if samples.ndim == 1:
        samples = samples[:, None]
    frames, channels = samples.shape
    payload = _encode(samples, fmt)
    if len(payload) & 1:
        payload += b"\x00"
    if file_type == "WAVE":
        tag = 3 if fmt.kind == "float" else 1
        block = channels * fmt.frame_bytes
        fmt_chunk = struct.pack("<HHIIHH", tag, channels, int(round(rate)), int(round(rate)) * block, block, fmt.bits)
        body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt_chunk)) + fmt_chunk
        body += b"data" + struct.pack("<I", frames * block) + payload
        return b"RIFF" + struct.pack("<I", len(body)) + body
    comm = struct.pack(">hIh", channels, frames, fmt.bits) + _ieee_extended(rate)
    if file_type == "AIFC":
        if fmt.kind == "float":
            code, name = (b"fl32", b"32-bit floating point") if fmt.bits == 32 else (b"fl64", b"64-bit floating point")
        elif fmt.big_endian or fmt.bits == 8:
            code, name = b"NONE", b"not compressed"
        else:
            code, name = b"sowt", b""
        pstring = bytes([len(name)]) + name
        if len(pstring) & 1:
            pstring += b"\x00"
        comm += code + pstring
        head = b"FVER" + struct.pack(">II", 4, 0xA2805140)
    else:
        head = b""
    ssnd = struct.pack(">II", 0, 0) + payload
    body = (b"AIFC" if file_type == "AIFC" else b"AIFF") + head + b"COMM" + struct.pack(">I", len(comm)) + comm
    body += b"SSND" + struct.pack(">I", 8 + frames * channels * fmt.frame_bytes) + ssnd
    return b"FORM" + struct.pack(">I", len(body)) + body


def container_accepts(file_type: str, fmt: AudioFormat) -> bool:
    """Whether a WAVE/AIFF/AIFC file can hold samples stored as ``fmt`` (8-bit samples are unsigned in
    WAVE and signed in AIFF/AIFC; wider ones little-endian in WAVE, big-endian in AIFF, either in AIFC)."""
    if fmt.bits == 8:
        return (fmt.kind == "uint") == (file_type == "WAVE")
    if file_type == "WAVE":
        return not fmt.big_endian and fmt.kind != "uint"
    if file_type == "AIFF":
        return fmt.kind == "int" and fmt.big_endian
    # AIFC: big-endian ('NONE') or little-endian ('sowt') integers, big-endian floats ('fl32'/'fl64')
    return fmt.kind == "int" or (fmt.kind == "float" and fmt.big_endian)


def tone_wav(tones: list[dict[str, Any]], sample_rate: int = 22050, channels: int = 1, amplitude: float = 0.5,
             file_type: str = "WAVE") -> bytes:
    """A 16-bit WAVE (or AIFF) of consecutive segments ``{"freq": Hz (0 = silence), "seconds": s}``,
    each a sine (a list of frequencies mixes several); deterministic, for task inputs."""
    parts = []
    for i, seg in enumerate(tones):
        if "seconds" not in seg:
            raise ValueError(f"tones[{i}] needs 'seconds' (and 'freq': Hz or a list of Hz), got {seg!r}")
        n = int(round(float(seg["seconds"]) * sample_rate))
        t = np.arange(n) / sample_rate
        freqs = seg.get("freq", 0)
        freqs = freqs if isinstance(freqs, list) else [freqs]
        x = np.zeros(n)
        for f in freqs:
            if float(f) > 0:
                x += np.sin(2 * np.pi * float(f) * t)
        if len([f for f in freqs if float(f) > 0]) > 1:
            x /= len(freqs)
        ramp = min(n // 2, int(0.005 * sample_rate))  # 5 ms fades: no clicks between segments
        if ramp:
            env = np.ones(n)
            env[:ramp] = np.linspace(0, 1, ramp)
            env[-ramp:] = np.linspace(1, 0, ramp)
            x *= env
        parts.append(x * float(amplitude))
    mono = np.concatenate(parts) if parts else np.zeros(0)
    samples = np.repeat(mono[:, None], int(channels), axis=1)
    big = file_type != "WAVE"
    return write_audio(file_type, float(sample_rate), AudioFormat("int", 16, big), samples)


# ================================================================================================ say

# name → (locale, fundamental Hz, sample sentence); a subset of the voices a Mac ships with
VOICES: dict[str, tuple[str, float, str]] = {
    "Albert": ("en_US", 95.0, "Hello! My name is Albert."),
    "Alex": ("en_US", 110.0, "Most people recognize me by my voice."),
    "Daniel": ("en_GB", 115.0, "Hello! My name is Daniel."),
    "Fred": ("en_US", 120.0, "I sure like being inside this fancy computer."),
    "Karen": ("en_AU", 210.0, "Hello! My name is Karen."),
    "Moira": ("en_IE", 205.0, "Hello! My name is Moira."),
    "Rishi": ("en_IN", 125.0, "Hello! My name is Rishi."),
    "Samantha": ("en_US", 200.0, "Hello! My name is Samantha."),
    "Tessa": ("en_ZA", 215.0, "Hello! My name is Tessa."),
    "Thomas": ("fr_FR", 118.0, "Bonjour, je m’appelle Thomas."),
    "Anna": ("de_DE", 205.0, "Hallo! Ich heiße Anna."),
    "Monica": ("es_ES", 210.0, "¡Hola! Me llamo Mónica."),
}
DEFAULT_VOICE = "Samantha"
DEFAULT_RATE = 175.0  # words per minute
SAY_RATE = 22050
# vowel letter → (first, second) formant frequencies, Hz (rough averages for English vowels)
_FORMANTS = {"a": (730, 1090), "e": (530, 1840), "i": (390, 1990), "o": (570, 840), "u": (440, 1020), "y": (400, 1900)}


def _syllables(word: str) -> list[str]:
    """The vowel groups of ``word`` (one per spoken syllable; a digit is a syllable)."""
    groups = re.findall(r"[aeiouy]+|\d", word.lower())
    if not groups:
        return ["e"] if any(c.isalpha() for c in word) else []
    return groups


def speech_samples(text: str, voice: str = DEFAULT_VOICE, rate: float = DEFAULT_RATE,
                   sample_rate: int = SAY_RATE) -> np.ndarray:
    """The speech-like signal ``say`` writes for ``text`` (mono float64; see the module docstring).

    At ``rate`` words a minute a syllable lasts 0.4 × 60 / rate s, a gap between words 0.15 × 60 / rate s,
    a comma/semicolon/colon pause 0.8 × 60 / rate s and a sentence end 1.5 × 60 / rate s."""
    beat = 60.0 / max(float(rate), 1.0)
    f0 = VOICES[voice][1]
    out: list[np.ndarray] = [np.zeros(int(0.05 * sample_rate))]
    for token in re.findall(r"[^\s,;:.!?]+|[,;:.!?]", text):
        if token in ",;:":
            out.append(np.zeros(int(0.8 * beat * sample_rate)))
            continue
        if token in ".!?":
            out.append(np.zeros(int(1.5 * beat * sample_rate)))
            continue
        groups = _syllables(token)
        for k, group in enumerate(groups):
            n = int(0.4 * beat * sample_rate)
            t = np.arange(n) / sample_rate
            # pitch falls a little over each word (declination); vowels colour the harmonics
            pitch = f0 * (1.08 - 0.12 * (k + t / (0.4 * beat)) / max(len(groups), 1))
            phase = 2 * np.pi * np.cumsum(pitch) / sample_rate
            f1, f2 = _FORMANTS.get(group[0], (500, 1500))
            x = np.zeros(n)
            for h in range(1, 16):
                fh = f0 * h
                gain = 1.0 / h + 0.8 * math.exp(-((fh - f1) / 180.0) ** 2) + 0.5 * math.exp(-((fh - f2) / 250.0) ** 2)
                x += gain * np.sin(h * phase)
            env = np.clip(np.sin(np.pi * np.arange(n) / max(n - 1, 1)), 0.0, 1.0) ** 0.6  # sin(pi) may be -1e-16
            out.append(0.18 * x * env)
        out.append(np.zeros(int(0.15 * beat * sample_rate)))
    out.append(np.zeros(int(0.05 * sample_rate)))
    return np.clip(np.concatenate(out), -1.0, 1.0)


# ================================================================================================ images

# sips -s format values → (Pillow format, typeIdentifier)
_IMAGE_FORMATS = {"png": ("PNG", "public.png"), "jpeg": ("JPEG", "public.jpeg"), "tiff": ("TIFF", "public.tiff"),
                  "bmp": ("BMP", "com.microsoft.bmp"), "gif": ("GIF", "com.compuserve.gif")}
_PIL_TO_SIPS = {v[0]: k for k, v in _IMAGE_FORMATS.items()}


def read_image(path: Path) -> tuple["Image.Image", str, tuple[Any, Any]]:
    """The image file at ``path`` read into memory (the file is closed again), its format as sips names
    it and its resolution (x, y) in dpi (72 when the file has none). Pillow's errors for a file it cannot
    read pass through: sips and Image Events each say so in their own words."""
    from PIL import Image

    with Image.open(path) as im:
        im.load()
        img = im.copy()
        fmt = _PIL_TO_SIPS.get(im.format or "", (im.format or "").lower())
        dpi = im.info.get("dpi", (72.0, 72.0))
    return img, fmt, dpi


_SIPS_OTHER_FORMATS = {"jp2", "pict", "qtif", "psd", "sgi", "tga", "heic", "pdf", "ico", "icns", "exr", "astc", "ktx"}
_JPEG_QUALITY = {"low": 25, "normal": 50, "high": 75, "best": 100, "default": 85}
_SIPS_PROPERTIES = ("pixelWidth", "pixelHeight", "typeIdentifier", "format", "formatOptions", "dpiWidth", "dpiHeight",
                    "samplesPerPixel", "bitsPerSample", "hasAlpha", "space", "profile")
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


class _Usage(Exception):
    """A command-line error: the text the tool prints (stderr) and its exit status."""

    def __init__(self, text: str, code: int = 1) -> None:
        super().__init__(text, code)  # both in args: the error crosses a process boundary (pickled)
        self.text = text
        self.code = code


def _positive_int(value: str, option: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise _Usage(f"Error: {option} needs a whole number of pixels, got {value!r}\n") from None
    if n <= 0:
        raise _Usage(f"Error: {option} needs a positive number of pixels, got {n}\n")
    return n


# ================================================================================================ the tool


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
        try:
            # in a short-lived child: decoding a photo or synthesising audio takes tens of megabytes for
            # a moment, which the env process would otherwise keep (the tools only read and write files)
            return run_in_child(tool, argv[1:], stdin, ctx)
        except _Usage as e:
            return "", e.text, e.code
        except OSError as e:  # a folder that does not exist, a name that is a folder, …
            where = ctx.posix(Path(e.filename)) if e.filename else ""
            return "", f"{argv[0]}: {where}: {e.strerror or e}\n", 1

    # ------------------------------------------------------------------ paths
    @staticmethod
    def _path(ctx: CommandContext, text: str, tool: str) -> Path:
        try:
            return ctx.resolve(text)
        except BackendError:
            raise _Usage(f"{tool}: {text}: the simulator's media tools work on files in the home folder "
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
                    raise _Usage(f"Error: {a} requires {n} argument{'s' if n > 1 else ''}\n"
                                 "Try 'sips --help' for help using this tool\n")
                actions.append((name, args[i + 1:i + 1 + n]))
                i += 1 + n
            elif a.startswith("-") and len(a) > 1:
                raise _Usage(f"Error: unknown option: {a}\nTry 'sips --help' for help using this tool\n")
            else:
                files.append(a)
                i += 1
        out_opt = [v[0] for k, v in actions if k == "out"]
        one_line = any(k == "oneLine" for k, _ in actions)
        valid: list[tuple[str, Path]] = []
        warnings = ""
        for f in files:
            p = self._path(ctx, f, "sips")
            if not p.is_file():
                warnings += f"Warning: {f} not a valid file - skipping\n"
                continue
            valid.append((f, p))
        if not valid:
            return "", warnings + _SIPS_NO_FILE, 13
        out_dir: Path | None = None
        out_file: Path | None = None
        if out_opt:
            target = self._path(ctx, out_opt[-1], "sips")
            if target.is_dir():
                out_dir = target
            elif len(valid) > 1:
                raise _Usage(f"Error: --out {out_opt[-1]} must be a directory when several files are given\n")
            else:
                out_file = target
        stdout, stderr, code = "", warnings, 0
        for shown, p in valid:
            try:
                img, fmt, dpi = read_image(p)
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
                    crop_offset = (int(_num(vals[0], "--cropOffset")), int(_num(vals[1], "--cropOffset")))
                elif name == "padColor":
                    if not re.fullmatch(r"[0-9A-Fa-f]{6}", vals[0]):
                        raise _Usage(f"Error: --padColor needs a hex colour like FFFFFF, got {vals[0]!r}\n")
                    pad_color = vals[0]
            for name, vals in actions:
                if name == "getProperty":
                    keys = _SIPS_PROPERTIES if vals[0] == "all" else (vals[0],)
                    for key in keys:
                        value = _sips_property(img, key, state)
                        if value is None:
                            stderr += f"Warning: unknown property: {key} (known: {', '.join(_SIPS_PROPERTIES)}, all)\n"
                            continue
                        lines.append(f"{key}: {value}")
                elif name == "setProperty":
                    self._sips_set(vals, state)
                    modified = True
                elif name in ("rotate", "flip", "crop", "pad", "resample", "resampleWidth", "resampleHeight", "resampleMax"):
                    img = _sips_transform(img, name, vals, crop_offset, pad_color)
                    modified = True
            path_text = ctx.posix(p)
            if lines:
                stdout += path_text + ("|" + "|".join(lines) if one_line else "".join(f"\n  {x}" for x in lines)) + "\n"
            if modified or out_file is not None or out_dir is not None:
                dest = out_file or ((out_dir / p.name) if out_dir is not None else p)
                try:
                    ctx.backend.check_in_home(dest)
                except BackendError:
                    raise _Usage(f"sips: {ctx.posix(dest)}: the simulator's media tools work on files in the home folder\n") from None
                dest.write_bytes(_sips_encode(img, state))
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
                raise _Usage(f"Error: the simulator's sips writes png, jpeg, tiff, bmp and gif, not {value}\n")
            if v not in _IMAGE_FORMATS:
                raise _Usage(f"Error: Unknown format: {value} (use png, jpeg, tiff, bmp or gif)\n")
            state["format"] = v
        elif key == "formatOptions":
            if value.lower() not in _JPEG_QUALITY and not re.fullmatch(r"\d{1,3}%?", value):
                raise _Usage(f"Error: formatOptions must be low, normal, high, best or a percentage, got {value!r}\n")
            state["formatOptions"] = value.lower()
        elif key in ("dpiWidth", "dpiHeight"):
            d = _num(value, key)
            state["dpi"] = (d, state["dpi"][1]) if key == "dpiWidth" else (state["dpi"][0], d)
        else:
            raise _Usage(f"Error: the simulator's sips sets format, formatOptions, dpiWidth and dpiHeight, not {key}\n")

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
                audio = read_audio(p.read_bytes())
            except (OSError, AudioError):
                err += f"AudioFileOpen failed ('{'typ?' if p.is_file() else 'wht?'}')\n"
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
                    raise _Usage(f"afconvert: option {a} needs a value\n")
                v = args[i + 1]
                if a in ("-f", "--file"):
                    file_type = v
                elif a in ("-d", "--data"):
                    data_format, _, r = v.partition("@")
                    if r:
                        rate = _num(r, "-d @rate")
                else:
                    channels = int(_num(v, "-c"))
                i += 2
            elif a in ("-r", "--src-quality", "-q", "--quality", "-b", "--bitrate", "-s", "--strategy", "--src-complexity"):
                i += 2  # encoder settings: nothing to do for linear PCM
            elif a in ("-v", "--verbose"):
                i += 1
            elif a in ("-h", "--help"):
                return _AFCONVERT_USAGE, "", 0
            elif a.startswith("-") and len(a) > 1:
                raise _Usage(f"afconvert: unknown option: {a}\n{_AFCONVERT_USAGE}")
            else:
                files.append(a)
                i += 1
        if not files:
            return "", _AFCONVERT_USAGE, 1
        if len(files) > 2:
            raise _Usage(f"afconvert: too many file arguments: {' '.join(files[2:])}\n")
        src = self._path(ctx, files[0], "afconvert")
        if not src.is_file():
            return "", f"Input file: {files[0]}, 0 frames\nError: ExtAudioFileOpenURL failed ('wht?')\n", 1
        try:
            audio = read_audio(src.read_bytes())
        except AudioError:
            return "", "Error: ExtAudioFileOpenURL failed ('typ?')\n", 1
        if file_type is None:
            if len(files) < 2:
                file_type = audio.file_type
            else:
                ext = Path(files[1]).suffix.lower()
                file_type = _EXT_TYPES.get(ext)
                if file_type is None:
                    if ext in _OTHER_EXTS:
                        raise _Usage(f"afconvert: the simulator writes WAVE, AIFF and AIFC files, not {ext}\n")
                    raise _Usage(f"afconvert: can't determine the file type of {files[1]}; give one with -f (WAVE, AIFF, AIFC)\n")
        if file_type not in _FILE_TYPES:
            if file_type in _OTHER_TYPES:
                raise _Usage(f"afconvert: the simulator writes WAVE, AIFF and AIFC files, not {file_type}\n")
            raise _Usage(f"Error: unknown file type '{file_type}' (use WAVE, AIFF or AIFC)\n")
        if data_format is None or data_format in ("", "0"):
            fmt = audio.fmt
            if not container_accepts(file_type, fmt):  # the same samples in the container's byte order
                fmt = AudioFormat(fmt.kind, fmt.bits, file_type != "WAVE")
                if not container_accepts(file_type, fmt):
                    fmt = AudioFormat("int", 16, file_type != "WAVE")
        elif data_format in DATA_FORMATS:
            fmt = AudioFormat(*DATA_FORMATS[data_format])
        elif data_format in ("aac", "alac", "ulaw", "alaw", "ima4", "mp3", ".mp3", "opus", "flac", "aach"):
            raise _Usage(f"afconvert: the simulator writes linear PCM only (LEI16, BEI16, LEF32, …), not {data_format}\n")
        else:
            raise _Usage(f"Error: unknown data format '{data_format}' (e.g. LEI16, BEI16, LEI24, LEF32, BEF32)\n")
        if not container_accepts(file_type, fmt):
            return "", "Error: ExtAudioFileCreateWithURL failed ('fmt?')\n", 1
        samples = audio.samples
        if channels is not None:
            if channels < 1 or channels > 8:
                raise _Usage(f"afconvert: -c needs 1 to 8 channels, got {channels}\n")
            if channels != audio.channels:
                mono = samples.mean(axis=1, keepdims=True)
                samples = np.repeat(mono, channels, axis=1) if channels > 1 or audio.channels > 1 else mono
        out_rate = float(rate) if rate else audio.rate
        if out_rate <= 0:
            raise _Usage(f"afconvert: the sample rate must be positive, got {out_rate:g}\n")
        if abs(out_rate - audio.rate) > 1e-6:
            samples = _resample(samples, audio.rate, out_rate)
        dest_text = files[1] if len(files) > 1 else str(Path(files[0]).with_suffix(_FILE_TYPES[file_type]))
        dest = self._path(ctx, dest_text, "afconvert")
        dest.write_bytes(write_audio(file_type, out_rate, fmt, samples))
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
                    raise _Usage(f"say: option requires an argument -- {a.lstrip('-')[:1]}\n")
                k = key if eq else a
                if k in ("-v", "--voice"):
                    voice = value
                elif k in ("-r", "--rate"):
                    rate = _num(value, "-r")
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
                    raise _Usage(f"say: option {a} requires an argument\n")
                if a == "--file-format":
                    file_format = args[i + 1]
                else:
                    data_format = args[i + 1]
                i += 2
            elif a in ("-i", "--interactive", "--progress") or a.startswith("--interactive="):
                i += 1
            elif a.startswith("-") and len(a) > 1 and a != "--":
                raise _Usage(f"say: illegal option -- {a.lstrip('-')[:1]}\n")
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
            raise _Usage(f"say: the rate must be a positive number of words per minute, got {rate:g}\n")
        if in_file is not None:
            if in_file == "-":
                text = stdin
            else:
                p = self._path(ctx, in_file, "say")
                if not p.is_file():
                    return "", f"Error reading input file {in_file}.\n", 1
                text = p.read_text(encoding="utf-8", errors="replace")
        else:
            text = " ".join(words) if words else stdin
        samples = speech_samples(text, voice, rate)
        if out_file is None:
            return "", "", 0  # spoken aloud: the simulated Mac has no speakers to hear it on
        ext = Path(out_file).suffix.lower()
        ftype = file_format or _EXT_TYPES.get(ext) or ("AIFF" if ext == "" else None)
        if ftype is None or ftype not in _FILE_TYPES:
            if ftype in _OTHER_TYPES or ext in _OTHER_EXTS:
                raise _Usage(f"say: the simulator writes AIFF, AIFC and WAVE files, not {ftype or ext}\n")
            return "", "Opening output file failed: fmt?\n", 1
        out_rate = float(SAY_RATE)
        if data_format is not None:
            name, _, r = data_format.partition("@")
            if name not in DATA_FORMATS:
                return "", "Opening output file failed: fmt?\n", 1
            fmt = AudioFormat(*DATA_FORMATS[name])
            if r:
                out_rate = _num(r, "--data-format @rate")
        elif ftype == "WAVE":
            return "", "Opening output file failed: fmt?\n", 1  # as on a Mac: WAVE needs --data-format
        else:
            fmt = AudioFormat("int", 16, True)
        if not container_accepts(ftype, fmt):
            return "", "Opening output file failed: fmt?\n", 1
        if abs(out_rate - SAY_RATE) > 1e-6:
            samples = _resample(samples[:, None], SAY_RATE, out_rate)[:, 0]
        dest = self._path(ctx, out_file if ext or file_format else out_file + ".aiff", "say")
        dest.write_bytes(write_audio(ftype, out_rate, fmt, samples[:, None]))
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


def _num(value: str, option: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise _Usage(f"Error: {option} needs a number, got {value!r}\n") from None


def _resample(samples: np.ndarray, src: float, dst: float) -> np.ndarray:
    """Band-limited resampling of (frames, channels) from ``src`` to ``dst`` Hz: the spectrum is cut (or
    zero-padded) at the new Nyquist frequency and transformed back (numpy only, no scipy import)."""
    n = samples.shape[0]
    m = max(1, int(round(n * dst / src)))
    if n == 0:
        return np.zeros((0, samples.shape[1]))
    spectrum = np.fft.rfft(samples, axis=0)
    keep = min(spectrum.shape[0], m // 2 + 1)
    out = np.zeros((m // 2 + 1, samples.shape[1]), dtype=complex)
    out[:keep] = spectrum[:keep]
    return np.fft.irfft(out, n=m, axis=0) * (m / n)


def _sips_property(img: "Image.Image", key: str, state: dict[str, Any]) -> str | None:
    bands = img.getbands()
    alpha = "A" in bands or (img.mode == "P" and "transparency" in img.info)
    values = {
        "pixelWidth": str(img.width), "pixelHeight": str(img.height),
        "typeIdentifier": _IMAGE_FORMATS.get(state["format"], ("", f"public.{state['format']}"))[1],
        "format": state["format"], "formatOptions": state["formatOptions"],
        "dpiWidth": f"{state['dpi'][0]:.3f}", "dpiHeight": f"{state['dpi'][1]:.3f}",
        "samplesPerPixel": str(len(bands) if img.mode != "P" else (4 if alpha else 3)),
        "bitsPerSample": "16" if img.mode.startswith("I;16") else ("1" if img.mode == "1" else "8"),
        "hasAlpha": "yes" if alpha else "no",
        "space": "Gray" if img.mode in ("L", "LA", "1") or img.mode.startswith("I") else "RGB",
        "profile": "Generic Gray Profile" if img.mode in ("L", "LA", "1") else "sRGB IEC61966-2.1",
    }
    return values.get(key)


def _sips_transform(img: "Image.Image", name: str, vals: list[str], crop_offset: tuple[int, int] | None,
                    pad_color: str) -> "Image.Image":
    from PIL import Image, ImageOps

    if name == "rotate":
        deg = _num(vals[0], "--rotate") % 360
        exact = {90.0: Image.Transpose.ROTATE_270, 180.0: Image.Transpose.ROTATE_180, 270.0: Image.Transpose.ROTATE_90}
        if deg == 0:
            return img
        if deg in exact:  # sips turns clockwise; Pillow's named turns are counter-clockwise
            return img.transpose(exact[deg])
        fill = (0, 0, 0, 0) if "A" in img.getbands() else "white"
        return img.convert("RGBA" if "A" in img.getbands() else "RGB").rotate(
            -deg, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=fill)
    if name == "flip":
        if vals[0] == "horizontal":
            return ImageOps.mirror(img)
        if vals[0] == "vertical":
            return ImageOps.flip(img)
        raise _Usage(f"Error: --flip takes horizontal or vertical, got {vals[0]!r}\n")
    if name == "resampleMax":
        m = _positive_int(vals[0], "--resampleHeightWidthMax")
        scale = m / max(img.width, img.height)
        size = (max(1, round(img.width * scale)), max(1, round(img.height * scale)))
    elif name == "resampleWidth":
        w = _positive_int(vals[0], "--resampleWidth")
        size = (w, max(1, round(img.height * w / img.width)))
    elif name == "resampleHeight":
        h = _positive_int(vals[0], "--resampleHeight")
        size = (max(1, round(img.width * h / img.height)), h)
    elif name == "resample":
        size = (_positive_int(vals[1], "--resampleHeightWidth"), _positive_int(vals[0], "--resampleHeightWidth"))
    elif name == "crop":
        h, w = _positive_int(vals[0], "--cropToHeightWidth"), _positive_int(vals[1], "--cropToHeightWidth")
        if crop_offset is not None:
            top, left = crop_offset
        else:
            top, left = (img.height - h) // 2, (img.width - w) // 2
        return img.crop((left, top, left + w, top + h))
    else:  # pad
        h, w = _positive_int(vals[0], "--padToHeightWidth"), _positive_int(vals[1], "--padToHeightWidth")
        base = img.convert("RGBA" if "A" in img.getbands() else "RGB")
        canvas = Image.new(base.mode, (max(w, img.width), max(h, img.height)), "#" + pad_color)
        canvas.paste(base, ((canvas.width - img.width) // 2, (canvas.height - img.height) // 2))
        return canvas
    mode = img.mode
    work = img if mode in ("RGB", "RGBA", "L", "LA") else img.convert("RGBA" if "A" in img.getbands() or
                                                                       "transparency" in img.info else "RGB")
    return work.resize(size, Image.Resampling.LANCZOS)


def _sips_encode(img: "Image.Image", state: dict[str, Any]) -> bytes:
    fmt = state["format"]
    pil_format = _IMAGE_FORMATS[fmt][0] if fmt in _IMAGE_FORMATS else None
    if pil_format is None:
        raise _Usage(f"Error: the simulator's sips cannot write {fmt} images; convert with -s format png|jpeg|tiff|bmp|gif\n")
    buf = io.BytesIO()
    dpi = tuple(round(d) for d in state["dpi"])
    if pil_format == "JPEG":
        opt = state["formatOptions"]
        quality = _JPEG_QUALITY.get(opt) or min(100, max(1, int(opt.rstrip("%"))))
        rgb = img.convert("L") if img.mode in ("L", "1") else img.convert("RGB")
        rgb.save(buf, format="JPEG", quality=quality, dpi=dpi)
    elif pil_format == "GIF":
        from PIL import Image

        (img if img.mode == "P" else img.convert("RGB").convert("P", palette=Image.Palette.ADAPTIVE)).save(buf, format="GIF")
    elif pil_format == "BMP":
        (img if img.mode in ("RGB", "RGBA", "L", "1", "P") else img.convert("RGB")).save(buf, format="BMP")
    else:
        (img if img.mode != "P" or pil_format == "PNG" else img.convert("RGBA")).save(buf, format=pil_format, dpi=dpi)
    return buf.getvalue()
