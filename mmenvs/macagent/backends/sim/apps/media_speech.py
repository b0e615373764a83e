"""The signal the sim's ``say`` writes: the voices it knows and :func:`speech_samples`.

``say`` has no speech model behind it: it writes a deterministic *speech-like* signal — one voiced
tone burst per syllable at the voice's pitch, with pauses between words and at punctuation — whose
duration follows the text and the speaking rate the way real speech does (about ``rate`` words a
minute). The file is a valid AIFF/WAVE with the real tool's defaults (22.05 kHz, mono, 16-bit), so
``afinfo``, ``afconvert``, Python and ffmpeg read it like any recording; it is not intelligible
speech, and no speech-to-text exists in the simulator."""

from __future__ import annotations

import math
import re

import numpy as np

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
