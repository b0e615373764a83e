"""Linear-PCM audio for MacAgent (the sim's media tools, task input files and their getters): WAVE, AIFF and AIFC files decoded to and encoded from
float samples (numpy), the sample formats ``afconvert`` names (``LEI16``, ``BEF32``, …), which
container holds which format, band-limited resampling, and :func:`tone_wav`, the test tones tasks
ship as input files."""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Any

import numpy as np

# afconvert's data-format names → (sample kind, bits, big-endian)
DATA_FORMATS: dict[str, tuple[str, int, bool]] = {
    "UI8": ("uint", 8, False), "I8": ("int", 8, True),
    "LEI16": ("int", 16, False), "BEI16": ("int", 16, True), "LEI24": ("int", 24, False), "BEI24": ("int", 24, True),
    "LEI32": ("int", 32, False), "BEI32": ("int", 32, True), "LEF32": ("float", 32, False), "BEF32": ("float", 32, True),
    "LEF64": ("float", 64, False), "BEF64": ("float", 64, True),
}
# file-format ids (afconvert -f, say --file-format) → the extension a file of that type gets
FILE_TYPES = {"WAVE": ".wav", "AIFF": ".aiff", "AIFC": ".aifc"}
EXT_TYPES = {".wav": "WAVE", ".wave": "WAVE", ".aif": "AIFF", ".aiff": "AIFF", ".aifc": "AIFC"}
# formats the real tools know but the simulator does not write (asked for, they get a clear error)
OTHER_TYPES = {"caff", "m4af", "m4bf", "mp4f", "adts", "ac-3", "3gpp", "3gp2", "MPG3", "NeXT", "Sd2f", "W64f", "RF64"}
OTHER_EXTS = {".caf", ".m4a", ".m4b", ".mp4", ".aac", ".mp3", ".ac3", ".3gp", ".au", ".snd"}


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


def resample(samples: np.ndarray, src: float, dst: float) -> np.ndarray:
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
