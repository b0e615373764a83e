"""``songsee`` in the simulated Mac: steipete's spectrogram CLI over real audio files in the home,
computed with numpy and drawn with Pillow.

``songsee track.wav`` writes ``track.jpg`` beside it (``-o`` another path; ``--format png|jpg``, the
output's extension wins) and prints the output path. ``--viz`` (repeatable or comma-separated) picks
the panels, laid out in a grid of ``ceil(sqrt(n))`` columns with 8 px gaps as the real tool does:

* ``spectrogram`` — STFT magnitude in dB (Hann window ``--window``, hop ``--hop``), low frequencies at
  the bottom, limited to ``--min-freq``…``--max-freq``;
* ``mel`` — 128 triangular mel bands in dB; ``mfcc`` — 20 coefficients (DCT-II of the log-mel bands);
* ``chroma`` — energy per pitch class, C at the bottom to B at the top;
* ``hpss`` — the harmonic part (median along time) over the percussive part (median along frequency);
* ``selfsim`` — cosine self-similarity of the chroma frames;
* ``loudness`` — RMS level in dBFS over time (a line); ``flux`` — spectral flux over time (a line);
* ``tempogram`` — autocorrelation of the onset envelope per time window (lag upwards).

Each heatmap is contrast-stretched between its 2nd and 98th percentiles and coloured with ``--style``
(classic, magma, inferno, viridis, gray, clawd). ``--start``/``--duration`` cut a slice first.

Input: linear-PCM WAVE, AIFF and AIFC (the sim's media formats, read as ``afinfo`` reads them). Other
formats (MP3, AAC, FLAC, …) are decoded by the shell's ``songsee`` function with ffmpeg inside the agent's
sandbox (``--sample-rate`` is ffmpeg's output rate, as in the real tool) into a temporary WAVE the host
reads: the host itself decodes no compressed audio. A program that execs ``songsee`` directly (not through
the shell function) gets PCM files only. ``-`` (stdin) and ``-o -`` are refused: the sim's shell passes
text, not bytes.
Usage errors exit 2 with the usage, run-time errors 1, as the real tool.

Bounds: an audio file of at most 64 MB, an STFT of at most 32 M cells (frames x bins: about six
minutes at the defaults; use ``--start``/``--duration`` or a larger ``--hop`` for longer files), an
output within the episode's ``image_pixels``; the work runs in a short-lived child process under the
action deadline and ``child_memory_bytes``."""

from __future__ import annotations

import io
import math
import posixpath
from pathlib import Path
from typing import Any

import numpy as np

from mmenvs.core.budget import check_limit

from .base import App, CommandContext
from .cli_support import CliExit, check_deadline, float_value, int_value, read_file, resolve, run_guarded, write_file
from mmenvs.macagent.formats.audio import AudioError, read_audio

VERSION = "songsee 0.3.0 (sim)"
MAX_AUDIO_BYTES = 64 * 2**20
MAX_STFT_CELLS = 32_000_000
VIZ = ("spectrogram", "mel", "chroma", "hpss", "selfsim", "loudness", "tempogram", "mfcc", "flux")
STYLES = ("classic", "magma", "inferno", "viridis", "gray", "clawd")
GAP = 8

_USAGE = """Usage: songsee <input> [flags]

generate spectral visualizations

Arguments:
  <input>    file path or '-' for stdin

Flags:
  -h, --help                Show context-sensitive help.
  -o, --output=STRING       output image path
      --format="jpg"        output format: jpg or png
      --width=1920          output width in pixels
      --height=1080         output height in pixels
      --window=2048         FFT window size in samples
      --hop=512             hop size in samples
      --min-freq=FLOAT      minimum frequency in Hz
      --max-freq=FLOAT      maximum frequency in Hz (0 = Nyquist)
      --start=FLOAT         start time in seconds
      --duration=FLOAT      duration in seconds (0 = full)
      --sample-rate=44100   ffmpeg output sample rate
      --style="classic"     palette style: classic, magma, inferno, viridis, gray, clawd
      --viz=VIZ,...         visualizations (repeatable or comma-separated): spectrogram, mel, chroma, hpss,
                            selfsim, loudness, tempogram, mfcc, flux
      --ffmpeg=STRING       path to ffmpeg binary
  -q, --quiet               suppress stdout output
  -v, --verbose             verbose stderr output
      --version             print version
"""

_VALUE = {"--output", "--format", "--width", "--height", "--window", "--hop", "--min-freq", "--max-freq", "--start",
          "--duration", "--sample-rate", "--style", "--viz", "--ffmpeg"}
_BOOL = {"--quiet", "--verbose"}
_SHORT = {"-o": "--output", "-q": "--quiet", "-v": "--verbose"}


def _usage(msg: str) -> CliExit:
    return CliExit(f"songsee: {msg}\n{_USAGE}", 2)


def _parse(args: list[str], where: list[int] | None = None) -> tuple[list[str], dict[str, Any]]:
    """(positional arguments, flags); ``where`` (when given) receives each positional's index in ``args``."""
    pos: list[str] = []
    opts: dict[str, Any] = {"--viz": []}
    where = where if where is not None else []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            where += range(i + 1, len(args))
            pos += args[i + 1:]
            break
        if a.startswith("-") and a != "-" and not _is_number(a):
            name, eq, inline = a.partition("=")
            name = _SHORT.get(name, name)
            if name in _BOOL:
                opts[name] = True
                i += 1
                continue
            if name not in _VALUE:
                raise _usage(f"unknown flag {name}")
            if eq:
                value = inline
            elif i + 1 < len(args):
                i += 1
                value = args[i]
            else:
                raise _usage(f"{name}: expected string value but got \"EOL\" (<EOL>)")
            if name == "--viz":
                opts["--viz"].append(value)
            else:
                opts[name] = value
            i += 1
            continue
        where.append(i)
        pos.append(a)
        i += 1
    return pos, opts


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


# ---------------------------------------------------------------------------------------------- analysis
class Analysis:
    """The STFT of a mono signal and the features derived from it (computed on first use)."""

    def __init__(self, x: np.ndarray, rate: float, window: int, hop: int, min_freq: float, max_freq: float) -> None:
        self.x, self.rate, self.window, self.hop = x, float(rate), window, hop
        n = len(x)
        frames = 1 + max(0, (n - window)) // hop if n >= window else 1
        bins = window // 2 + 1
        if frames * bins > MAX_STFT_CELLS:
            raise CliExit(f"songsee: an STFT of {frames:,} frames x {bins:,} bins is more than the {MAX_STFT_CELLS:,} "
                          "cells the simulated songsee computes in one action; cut the audio with --start/--duration "
                          "or raise --hop\n")
        if n < window:
            x = np.pad(x, (0, window - n))
        win = np.hanning(window).astype(np.float32)
        mag = np.empty((bins, frames), dtype=np.float32)
        view = np.lib.stride_tricks.sliding_window_view(x.astype(np.float32), window)[::hop]
        for start in range(0, frames, 512):
            check_deadline()
            chunk = view[start:start + 512] * win
            mag[:, start:start + chunk.shape[0]] = np.abs(np.fft.rfft(chunk, axis=1)).T
        self.mag = mag
        self.freqs = np.arange(bins) * self.rate / window
        top = max_freq if max_freq > 0 else self.rate / 2
        self.min_freq, self.max_freq = max(0.0, min_freq), min(top, self.rate / 2)
        self.band = (self.freqs >= self.min_freq) & (self.freqs <= self.max_freq)
        if not self.band.any():
            raise CliExit("songsee: the frequency range holds no FFT bin; widen --min-freq/--max-freq\n")
        self._mel: np.ndarray | None = None
        self._chroma: np.ndarray | None = None

    @property
    def frames(self) -> int:
        return int(self.mag.shape[1])

    def spectrogram(self) -> np.ndarray:
        return 20 * np.log10(self.mag[self.band] + 1e-6)

    def mel(self) -> np.ndarray:
        if self._mel is None:
            n_mels = 128
            lo, hi = _hz_to_mel(self.min_freq), _hz_to_mel(self.max_freq)
            edges = _mel_to_hz(np.linspace(lo, hi, n_mels + 2))
            f = self.freqs[:, None]
            left, centre, right = edges[:-2][None, :], edges[1:-1][None, :], edges[2:][None, :]
            up = (f - left) / np.maximum(centre - left, 1e-9)
            down = (right - f) / np.maximum(right - centre, 1e-9)
            fb = np.clip(np.minimum(up, down), 0, None).T.astype(np.float32)  # (mels, bins)
            check_deadline()
            self._mel = fb @ (self.mag ** 2)
        return 10 * np.log10(self._mel + 1e-10)

    def mfcc(self, n: int = 20) -> np.ndarray:
        logmel = self.mel()
        m = logmel.shape[0]
        k = np.arange(n)[:, None]
        dct = np.cos(np.pi / m * (np.arange(m)[None, :] + 0.5) * k)
        return dct @ logmel

    def chroma(self) -> np.ndarray:
        if self._chroma is None:
            f = self.freqs
            ok = (f >= max(27.5, self.min_freq)) & (f <= self.max_freq)
            pc = (np.round(12 * np.log2(np.where(ok, f, 440.0) / 440.0)).astype(int) + 9) % 12  # C = 0
            power = self.mag ** 2
            out = np.zeros((12, self.frames), dtype=np.float64)
            for c in range(12):
                sel = ok & (pc == c)
                if sel.any():
                    out[c] = power[sel].sum(axis=0)
            self._chroma = out / np.maximum(out.max(axis=0, keepdims=True), 1e-12)
        return self._chroma

    def rms_db(self) -> np.ndarray:
        n = len(self.x)
        if n < self.window:
            return np.array([20 * np.log10(np.sqrt(np.mean(self.x ** 2)) + 1e-9)]) if n else np.array([-120.0])
        view = np.lib.stride_tricks.sliding_window_view(self.x, self.window)[::self.hop]
        out = np.empty(view.shape[0])
        for s in range(0, view.shape[0], 4096):
            check_deadline()
            out[s:s + 4096] = np.sqrt(np.mean(view[s:s + 4096] ** 2, axis=1))
        return 20 * np.log10(out + 1e-9)

    def flux(self) -> np.ndarray:
        m = np.log1p(self.mag[self.band])
        d = np.diff(m, axis=1, prepend=m[:, :1])
        return np.clip(d, 0, None).sum(axis=0)

    def hpss(self, kernel: int = 17) -> tuple[np.ndarray, np.ndarray]:
        s = _shrink(self.mag[self.band], 256, 1024)
        h = _median(s, kernel, axis=1)
        p = _median(s, kernel, axis=0)
        return 20 * np.log10(h + 1e-6), 20 * np.log10(p + 1e-6)

    def selfsim(self) -> np.ndarray:
        c = _shrink(self.chroma(), 12, 512)
        c = c / np.maximum(np.linalg.norm(c, axis=0, keepdims=True), 1e-12)
        return c.T @ c

    def tempogram(self, lags: int = 192) -> np.ndarray:
        env = self.flux()
        env = env - env.mean()
        n = len(env)
        lags = max(2, min(lags, n // 2 if n >= 8 else 2))
        width = min(n, 2 * lags)
        starts = np.linspace(0, max(0, n - width), num=min(512, max(1, n - width + 1))).astype(int)
        out = np.zeros((lags, len(starts)))
        for j, s in enumerate(starts):
            if j % 64 == 0:
                check_deadline()
            seg = env[s:s + width]
            ac = np.correlate(seg, seg, mode="full")[len(seg) - 1:len(seg) - 1 + lags]
            out[:len(ac), j] = ac / (ac[0] if ac[0] > 0 else 1.0)
        return out


def _hz_to_mel(f: Any) -> Any:
    return 2595.0 * np.log10(1.0 + np.asarray(f) / 700.0)


def _mel_to_hz(m: Any) -> Any:
    return 700.0 * (10 ** (np.asarray(m) / 2595.0) - 1.0)


def _shrink(a: np.ndarray, max_rows: int, max_cols: int) -> np.ndarray:
    """``a`` averaged down to at most ``max_rows`` x ``max_cols`` (block means)."""
    rows, cols = a.shape
    fr, fc = max(1, math.ceil(rows / max_rows)), max(1, math.ceil(cols / max_cols))
    if fr == 1 and fc == 1:
        return a
    pr, pc = (-rows) % fr, (-cols) % fc
    b = np.pad(a, ((0, pr), (0, pc)), mode="edge")
    return b.reshape(b.shape[0] // fr, fr, b.shape[1] // fc, fc).mean(axis=(1, 3))


def _median(a: np.ndarray, k: int, axis: int) -> np.ndarray:
    pad = [(0, 0), (0, 0)]
    pad[axis] = (k // 2, k // 2)
    b = np.pad(a, pad, mode="edge")
    win = np.lib.stride_tricks.sliding_window_view(b, k, axis=axis)
    return np.median(win, axis=-1)


# ---------------------------------------------------------------------------------------------- drawing
_CLASSIC = [(0, 0, 0), (20, 10, 90), (110, 20, 140), (200, 40, 60), (250, 150, 30), (255, 255, 200)]
_CLAWD = [(0, 0, 0), (90, 10, 10), (200, 40, 20), (250, 120, 40), (255, 220, 170)]


def palette(style: str) -> np.ndarray:
    """A 256 x 3 uint8 colour table."""
    if style == "gray":
        v = np.arange(256, dtype=np.uint8)
        return np.stack([v, v, v], axis=1)
    if style in ("magma", "inferno", "viridis"):
        try:
            from matplotlib import colormaps

            return (np.asarray(colormaps[style](np.linspace(0, 1, 256)))[:, :3] * 255).round().astype(np.uint8)
        except Exception:  # noqa: BLE001 - without matplotlib: a close ramp of our own
            stops = {"magma": [(0, 0, 4), (80, 18, 123), (183, 55, 121), (252, 137, 97), (252, 253, 191)],
                     "inferno": [(0, 0, 4), (87, 16, 110), (188, 55, 84), (249, 142, 9), (252, 255, 164)],
                     "viridis": [(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)]}[style]
            return _ramp(stops)
    return _ramp(_CLAWD if style == "clawd" else _CLASSIC)


def _ramp(stops: list[tuple[int, int, int]]) -> np.ndarray:
    xs = np.linspace(0, 255, len(stops))
    v = np.arange(256)
    return np.stack([np.interp(v, xs, [s[c] for s in stops]) for c in range(3)], axis=1).round().astype(np.uint8)


def _normalise(a: np.ndarray) -> np.ndarray:
    lo, hi = np.percentile(a, 2), np.percentile(a, 98)
    if not np.isfinite(lo) or not np.isfinite(hi) or hi - lo < 1e-12:
        return np.zeros_like(a, dtype=np.float64) if not np.any(a) else np.clip((a - a.min()) / max(np.ptp(a), 1e-12), 0, 1)
    return np.clip((a - lo) / (hi - lo), 0, 1)


def heatmap(a: np.ndarray, w: int, h: int, lut: np.ndarray) -> np.ndarray:
    """Rows of ``a`` bottom-up (row 0 at the bottom), stretched to ``w`` x ``h``, coloured by ``lut``."""
    from PIL import Image

    a = _shrink(np.asarray(a, dtype=np.float64), max(h, 1) * 2, max(w, 1) * 2)
    idx = (_normalise(a)[::-1] * 255).round().astype(np.uint8)
    img = Image.fromarray(idx, "L").resize((w, h), Image.NEAREST if min(idx.shape) < 64 else Image.BILINEAR)
    return lut[np.asarray(img)]


def line_panel(values: np.ndarray, w: int, h: int, lut: np.ndarray) -> np.ndarray:
    """``values`` over time as a line (coloured from the palette's bright end) on black."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (w, h), (0, 0, 0))
    if len(values):
        v = _normalise(np.asarray(values, dtype=np.float64)[None, :])[0]
        xs = np.linspace(0, w - 1, len(v)) if len(v) > 1 else np.array([0.0, w - 1.0])
        ys = (1 - (v if len(v) > 1 else np.repeat(v, 2))) * (h - 1)
        if len(xs) > 4 * w:  # one point per pixel column is enough
            keep = np.linspace(0, len(xs) - 1, 4 * w).astype(int)
            xs, ys = xs[keep], ys[keep]
        d = ImageDraw.Draw(img)
        d.line(list(zip(xs.tolist(), ys.tolist())), fill=tuple(int(c) for c in lut[220]), width=max(1, h // 200))
    return np.asarray(img)


def render_panel(kind: str, an: Analysis, w: int, h: int, lut: np.ndarray) -> np.ndarray:
    check_deadline()
    if kind == "spectrogram":
        return heatmap(an.spectrogram(), w, h, lut)
    if kind == "mel":
        return heatmap(an.mel(), w, h, lut)
    if kind == "mfcc":
        return heatmap(an.mfcc(), w, h, lut)
    if kind == "chroma":
        return heatmap(an.chroma(), w, h, lut)
    if kind == "selfsim":
        return heatmap(an.selfsim()[::-1], w, h, lut)  # time runs down the rows, as matrices are read
    if kind == "tempogram":
        return heatmap(an.tempogram(), w, h, lut)
    if kind == "hpss":
        harm, perc = an.hpss()
        top = h // 2
        return np.concatenate([heatmap(harm, w, top, lut), heatmap(perc, w, h - top, lut)], axis=0)
    if kind == "loudness":
        return line_panel(an.rms_db(), w, h, lut)
    return line_panel(an.flux(), w, h, lut)  # flux


# ---------------------------------------------------------------------------------------------- the tool
def _probe(args: list[str], ctx: CommandContext) -> tuple[str, str, int]:
    """For the shell function: ``<index>\t<rate>`` when the input (``args[index]``) is a regular file of the
    home that is not linear PCM (e.g. MP3: the function decodes it with the sandbox's ffmpeg first), else ""."""
    where: list[int] = []
    try:
        pos, o = _parse(args, where)
        rate = int(o.get("--sample-rate", "44100"))
    except (CliExit, ValueError):
        return "", "", 0
    if len(pos) != 1 or pos[0] == "-" or not 1000 <= rate <= 384_000:
        return "", "", 0
    try:
        p = resolve(ctx, pos[0], "songsee")
        files = ctx.backend.current_desktop().home_files
        if files.kind(p) != "file":
            return "", "", 0
        head = files.read_head(p, 12)
    except (CliExit, OSError):
        return "", "", 0
    if (head[:4] == b"RIFF" and head[8:12] == b"WAVE") or (head[:4] == b"FORM" and head[8:12] in (b"AIFF", b"AIFC")):
        return "", "", 0
    return f"{where[0]}\t{rate}\n", "", 0


def _main(args: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
    from PIL import Image

    if args[:1] == ["--__mm-probe"]:
        return _probe(args[1:], ctx)
    shown_input = None
    if args and args[0].startswith("--__mm-input-name="):
        shown_input, args = args[0].split("=", 1)[1], args[1:]
    if not args:
        return "", _USAGE, 2
    if args[0] in ("-h", "--help") or "--help" in args or "-h" in args:
        return _USAGE, "", 0
    if "--version" in args:
        return VERSION + "\n", "", 0
    pos, o = _parse(args)
    if len(pos) != 1:
        raise _usage('expected "<input>"' if not pos else f'unexpected argument {pos[1]}')
    src = pos[0]
    shown = shown_input if shown_input is not None else src
    width = int_value(o.get("--width", "1920"), "--width", "songsee")
    height = int_value(o.get("--height", "1080"), "--height", "songsee")
    window = int_value(o.get("--window", "2048"), "--window", "songsee")
    hop = int_value(o.get("--hop", "512"), "--hop", "songsee")
    min_f = float_value(o.get("--min-freq", "0"), "--min-freq", "songsee")
    max_f = float_value(o.get("--max-freq", "0"), "--max-freq", "songsee")
    start = float_value(o.get("--start", "0"), "--start", "songsee")
    dur = float_value(o.get("--duration", "0"), "--duration", "songsee")
    int_value(o.get("--sample-rate", "44100"), "--sample-rate", "songsee")
    if max_f > 0 and max_f <= min_f:
        raise _usage("--max-freq must be > --min-freq")
    if width <= 0 or height <= 0:
        raise _usage("--width and --height must be > 0")
    if window <= 0 or hop <= 0:
        raise _usage("--window and --hop must be > 0")
    if window & (window - 1):
        raise _usage("--window must be a power of two")
    if window > 65536:
        raise _usage("--window must be at most 65536 in the simulator")
    if start < 0 or dur < 0:
        raise _usage("--start and --duration must be >= 0")
    fmt = o.get("--format", "jpg").lower()
    if fmt not in ("jpg", "jpeg", "png"):
        raise _usage("--format must be jpg or png")
    fmt = "jpg" if fmt == "jpeg" else fmt
    output = o.get("--output", "")
    if src == "-":
        raise CliExit("songsee: reading audio from stdin is not supported in the simulator's shell (it passes text, "
                      "not bytes); give the file's path\n")
    if output == "-":
        raise CliExit("songsee: writing the image to stdout is not supported in the simulator's shell; give -o <file>\n")
    if not output:
        base = posixpath.basename(shown)
        ext = posixpath.splitext(base)[1]
        stem = base[: -len(ext)] if ext else base
        output = posixpath.normpath(posixpath.join(posixpath.dirname(shown), stem + "." + fmt))
    else:
        ext = Path(output).suffix.lower()
        if ext == ".png":
            fmt = "png"
        elif ext in (".jpg", ".jpeg"):
            fmt = "jpg"
        elif "--format" not in o:
            output += "." + fmt
    style = o.get("--style", "classic").strip().lower()
    if style not in STYLES:
        raise _usage("unknown style")
    kinds: list[str] = []
    for item in o["--viz"]:
        for k in item.split(","):
            k = k.strip().lower()
            if not k:
                continue
            if k not in VIZ:
                raise _usage(f"unknown viz: {k}")
            if k not in kinds:
                kinds.append(k)
    kinds = kinds or ["spectrogram"]
    check_limit("image_pixels", ctx.backend.budget.image_pixels, width * height, f"songsee: a {width}x{height} image")
    cols = math.ceil(math.sqrt(len(kinds)))
    rows = math.ceil(len(kinds) / cols)
    cw, ch = (width - GAP * (cols - 1)) // cols, (height - GAP * (rows - 1)) // rows
    if cw <= 0 or ch <= 0:
        raise _usage(f"output too small for {len(kinds)} panels")
    in_path = resolve(ctx, src, "songsee")
    data = read_file(ctx, in_path, MAX_AUDIO_BYTES, "songsee", shown)
    try:
        audio = read_audio(data)
    except AudioError as e:
        head = data[:4]
        if head[:3] == b"ID3" or (len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0):
            raise CliExit(f"songsee: decode {shown}: MP3 is decoded by the shell's songsee function (with ffmpeg); "
                          "a program that runs songsee directly gets WAVE, AIFF and AIFC only\n") from None
        raise CliExit(f"songsee: decode {shown}: {e}\n") from None
    x = audio.samples.mean(axis=1) if audio.channels > 1 else audio.samples[:, 0]
    if len(x) == 0 or audio.rate <= 0:
        raise CliExit("songsee: no samples decoded\n")
    verbose = ""
    if o.get("--verbose"):
        verbose += f"input: {shown}\noutput: {output} ({fmt})\ndecoded: {len(x)} samples @ {int(audio.rate)} Hz\n"
    if start > 0 or dur > 0:
        a = int(round(start * audio.rate))
        if a >= len(x):
            raise CliExit(f"songsee: start {start:g}s is beyond the end of the audio ({len(x) / audio.rate:.2f}s)\n")
        b = len(x) if dur == 0 else min(len(x), a + int(round(dur * audio.rate)))
        x = x[a:b]
        if o.get("--verbose"):
            verbose += f"slice: {start:0.2f}s + {dur:0.2f}s => {len(x)} samples\n"
    an = Analysis(x, audio.rate, window, hop, min_f, max_f)
    lut = palette(style)
    canvas = np.zeros((height, width, 3), dtype=np.uint8)
    for i, kind in enumerate(kinds):
        panel = render_panel(kind, an, cw, ch, lut)
        px, py = (i % cols) * (cw + GAP), (i // cols) * (ch + GAP)
        canvas[py:py + ch, px:px + cw] = panel[:ch, :cw]
    buf = io.BytesIO()
    img = Image.fromarray(canvas, "RGB")
    if fmt == "png":
        img.save(buf, format="PNG")
    else:
        img.save(buf, format="JPEG", quality=95)
    write_file(ctx, resolve(ctx, output, "songsee"), buf.getvalue())
    return ("" if o.get("--quiet") else output + "\n"), verbose, 0


# The shell's songsee: formats other than linear PCM (MP3, AAC, FLAC, …) are decoded first by ffmpeg inside
# the agent's sandbox (as the real songsee falls back to ffmpeg), into a WAVE in ~/Library/Caches/songsee that
# the host reads through the confined layer and removes afterwards. The host decodes no compressed audio: a
# crafted file can only upset ffmpeg in the sandbox. Defined after the generated host-command function, so it
# replaces it; a program that execs songsee directly reaches the host command (PCM files only).
_SHELL_INIT = r"""songsee() {
  local __p __i __r __rc __in __tmp __dir="$HOME/Library/Caches/songsee"
  __p=$(__mm_host songsee "--mm-cwd=$PWD" --__mm-probe "$@" </dev/null 2>/dev/null) || __p=""
  if [ -z "$__p" ]; then __mm_host songsee "--mm-cwd=$PWD" "$@" </dev/null; return; fi
  __i=${__p%%$'\t'*}; __r=${__p#*$'\t'}
  local -a __a=("$@")
  __in=${__a[$__i]}
  if ! command -v ffmpeg >/dev/null 2>&1; then
    echo "songsee: decode $__in: ffmpeg fallback: exec: \"ffmpeg\": executable file not found in \$PATH" >&2; return 1
  fi
  mkdir -p "$__dir" || return 1
  __tmp="$__dir/decoded-$$-$RANDOM.wav"
  if ! ffmpeg -nostdin -hide_banner -loglevel error -y -i "$__in" -vn -ac 1 -ar "$__r" -c:a pcm_s16le -f wav \
       "$__tmp" </dev/null; then
    rm -f "$__tmp"; echo "songsee: decode $__in: ffmpeg could not decode the file" >&2; return 1
  fi
  __a[$__i]=$__tmp
  __mm_host songsee "--mm-cwd=$PWD" "--__mm-input-name=$__in" "${__a[@]}" </dev/null; __rc=$?
  rm -f "$__tmp"; return $__rc
}
"""


class SongseeTool(App):
    """``songsee`` (see the module docstring). No state: its results are image files."""

    name = "songsee"
    bundle_id = "com.steipete.songsee"
    in_dock = False
    text_editing = False
    shell_commands = {"songsee": False}
    shell_init = _SHELL_INIT

    def state(self) -> dict[str, Any]:
        return {"running": False}

    def run_command(self, argv: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        return run_guarded("songsee", _main, argv[1:], stdin, ctx, child=True)
