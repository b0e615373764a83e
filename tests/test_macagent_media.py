"""The Mac's media tools in the MacAgent sim: ``sips`` against what Pillow measures in its outputs,
``afinfo``'s numbers, ``afconvert``'s conversions, ``say``'s determinism and timing, the audio
reader/writer underneath, the real tools' error messages, and the shell's Python and ffmpeg."""

from __future__ import annotations

import io
import shutil
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mmenvs.macagent.backends.sim.apps import APPS, CLI_APPS, SIM_APPS
from mmenvs.macagent.formats.audio import DATA_FORMATS, AudioFormat, read_audio, tone_wav, write_audio
from mmenvs.macagent.backends.sim.apps.media_speech import VOICES, speech_samples
from mmenvs.macagent.backends.sim.backend import SimBackend
from mmenvs.macagent.tasks import GENERATORS

NOW = datetime(2026, 5, 2, 11, 0)


@pytest.fixture(scope="module")
def backend(tmp_path_factory):
    b = SimBackend()
    b.reset(now=NOW, home=tmp_path_factory.mktemp("media") / "home")
    yield b
    b.close()


@pytest.fixture()
def home(backend) -> Path:
    """The episode's home (emptied for each test); a 40×30 test picture at ~/Desktop/pic.png whose
    top-left pixel is red, top-right green, bottom-left blue, the rest grey."""
    backend.reset(now=NOW, home=backend.home)
    img = Image.new("RGB", (40, 30), (128, 128, 128))
    img.putpixel((0, 0), (255, 0, 0))
    img.putpixel((39, 0), (0, 255, 0))
    img.putpixel((0, 29), (0, 0, 255))
    img.save(backend.home / "Desktop" / "pic.png")
    return backend.home


def sh(backend: SimBackend, command: str) -> tuple[str, str, int]:
    out = backend.run_shell(command)
    return out.stdout, out.stderr, out.exit_code


def opened(path: Path) -> Image.Image:
    """The image at ``path``, loaded (the file is closed), with the format Pillow detected."""
    with Image.open(path) as im:
        im.load()
        copy = im.copy()
        copy.format = im.format  # type: ignore[misc]
        return copy


# ------------------------------------------------------------------------------------------ registry

def test_media_tools_are_a_cli_app_not_a_desktop_app(backend):
    assert "Media Tools" in CLI_APPS and "Media Tools" in APPS and "Media Tools" not in SIM_APPS
    assert "Media Tools" not in backend.current_desktop().apps
    assert [hit for hit in backend.current_desktop().spotlight.hits("media") if hit[0] == "app"] == []
    out, err, code = sh(backend, "open -a 'Media Tools'")
    assert (code, err) == (1, "Unable to find application named 'Media Tools'\n")


# ------------------------------------------------------------------------------------------ sips

def test_sips_get_properties(backend, home):
    out, err, code = sh(backend, "cd ~/Desktop && sips -g pixelWidth -g pixelHeight -g format -g hasAlpha pic.png")
    assert (err, code) == ("", 0)
    assert out == "/Users/user/Desktop/pic.png\n  pixelWidth: 40\n  pixelHeight: 30\n  format: png\n  hasAlpha: no\n"
    out, _, _ = sh(backend, "sips -1 -g pixelWidth ~/Desktop/pic.png")
    assert out == "/Users/user/Desktop/pic.png|pixelWidth: 40\n"
    out, _, _ = sh(backend, "sips -g all ~/Desktop/pic.png")
    keys = [line.split(":")[0].strip() for line in out.splitlines()[1:]]
    assert keys == ["pixelWidth", "pixelHeight", "typeIdentifier", "format", "formatOptions", "dpiWidth", "dpiHeight",
                    "samplesPerPixel", "bitsPerSample", "hasAlpha", "space", "profile"]
    assert "  typeIdentifier: public.png" in out.splitlines()


def test_sips_resample_flags_match_pillow_measurements(backend, home):
    cases = {
        "-z 12 20": (20, 12),            # -z takes height first
        "--resampleHeightWidth 7 9": (9, 7),
        "-Z 20": (20, 15),               # the longer side becomes 20, proportions kept
        "--resampleWidth 10": (10, 8),   # 30 * 10 / 40 = 7.5 → 8
        "--resampleHeight 60": (80, 60),
    }
    for i, (flags, size) in enumerate(cases.items()):
        out, err, code = sh(backend, f"sips {flags} ~/Desktop/pic.png --out ~/Desktop/r{i}.png")
        assert code == 0, err
        assert out == f"/Users/user/Desktop/pic.png\n  /Users/user/Desktop/r{i}.png\n"
        assert opened(home / "Desktop" / f"r{i}.png").size == size, flags
    assert opened(home / "Desktop" / "pic.png").size == (40, 30)  # --out leaves the input alone


def test_sips_modifies_in_place_without_out(backend, home):
    sh(backend, "sips -Z 8 ~/Desktop/pic.png")
    assert opened(home / "Desktop" / "pic.png").size == (8, 6)


def test_sips_format_conversion(backend, home):
    for fmt, pil in (("jpeg", "JPEG"), ("tiff", "TIFF"), ("bmp", "BMP"), ("gif", "GIF"), ("png", "PNG")):
        out, err, code = sh(backend, f"sips -s format {fmt} ~/Desktop/pic.png --out ~/Desktop/out.{fmt}")
        assert code == 0, err
        im = opened(home / "Desktop" / f"out.{fmt}")
        assert (im.format, im.size) == (pil, (40, 30))
        out, _, _ = sh(backend, f"sips -g format ~/Desktop/out.{fmt}")
        assert out.splitlines()[1] == f"  format: {fmt}"
    # without --out the data changes format but the name stays, as on a Mac
    sh(backend, "sips -s format jpeg ~/Desktop/pic.png")
    assert opened(home / "Desktop" / "pic.png").format == "JPEG"


def test_sips_jpeg_quality_options_change_the_file(backend, home):
    Image.fromarray(np.random.default_rng(0).integers(0, 255, (64, 64, 3), dtype=np.uint8)).save(home / "Desktop" / "noise.png")
    sizes = {}
    for q in ("low", "best"):
        sh(backend, f"sips -s format jpeg -s formatOptions {q} ~/Desktop/noise.png --out ~/Desktop/{q}.jpg")
        sizes[q] = (home / "Desktop" / f"{q}.jpg").stat().st_size
    assert sizes["low"] < sizes["best"]


def test_sips_rotate_and_flip_move_the_corner_pixels(backend, home):
    sh(backend, "sips -r 90 ~/Desktop/pic.png --out ~/Desktop/rot.png")
    rot = opened(home / "Desktop" / "rot.png").convert("RGB")
    assert rot.size == (30, 40)
    # clockwise: the top-left (red) goes to the top-right, the bottom-left (blue) to the top-left
    assert rot.getpixel((29, 0)) == (255, 0, 0) and rot.getpixel((0, 0)) == (0, 0, 255)
    sh(backend, "sips -r 180 ~/Desktop/pic.png --out ~/Desktop/r180.png")
    assert opened(home / "Desktop" / "r180.png").convert("RGB").getpixel((39, 29)) == (255, 0, 0)
    sh(backend, "sips -f horizontal ~/Desktop/pic.png --out ~/Desktop/fh.png")
    fh = opened(home / "Desktop" / "fh.png").convert("RGB")
    assert fh.getpixel((39, 0)) == (255, 0, 0) and fh.getpixel((0, 0)) == (0, 255, 0)
    sh(backend, "sips -f vertical ~/Desktop/pic.png --out ~/Desktop/fv.png")
    assert opened(home / "Desktop" / "fv.png").convert("RGB").getpixel((0, 29)) == (255, 0, 0)
    sh(backend, "sips -r 45 ~/Desktop/pic.png --out ~/Desktop/r45.png")
    w, h = opened(home / "Desktop" / "r45.png").size
    assert 48 <= w <= 51 and 48 <= h <= 51  # the canvas grows to hold the turned picture


def test_sips_crop_and_pad(backend, home):
    sh(backend, "sips -c 10 20 ~/Desktop/pic.png --out ~/Desktop/c.png")
    assert opened(home / "Desktop" / "c.png").size == (20, 10)
    sh(backend, "sips -c 5 5 --cropOffset 0 0 ~/Desktop/pic.png --out ~/Desktop/c0.png")
    assert opened(home / "Desktop" / "c0.png").convert("RGB").getpixel((0, 0)) == (255, 0, 0)
    sh(backend, "sips -p 50 60 --padColor 00FF00 ~/Desktop/pic.png --out ~/Desktop/p.png")
    padded = opened(home / "Desktop" / "p.png").convert("RGB")
    assert padded.size == (60, 50) and padded.getpixel((0, 0)) == (0, 255, 0)
    assert padded.getpixel((10, 10)) == (255, 0, 0)  # the picture sits in the middle


def test_sips_out_directory_and_several_files(backend, home):
    Image.new("RGB", (20, 20), "white").save(home / "Desktop" / "b.png")
    sh(backend, "mkdir -p ~/Desktop/small")
    out, err, code = sh(backend, "cd ~/Desktop && sips -Z 10 pic.png b.png --out small")
    assert code == 0, err
    assert out == ("/Users/user/Desktop/pic.png\n  /Users/user/Desktop/small/pic.png\n"
                   "/Users/user/Desktop/b.png\n  /Users/user/Desktop/small/b.png\n")
    assert opened(home / "Desktop" / "small" / "b.png").size == (10, 10)


def test_sips_errors_as_the_real_tool_prints_them(backend, home):
    out, err, code = sh(backend, "sips -g pixelWidth ~/Desktop/missing.png")
    assert (out, code) == ("", 13)
    assert err == ("Warning: /Users/user/Desktop/missing.png not a valid file - skipping\n"
                   "Error 4: no file was specified\nTry 'sips --help' for help using this tool\n")
    out, err, code = sh(backend, "sips -g pixelWidth")
    assert err == "Error 4: no file was specified\nTry 'sips --help' for help using this tool\n"
    out, err, code = sh(backend, "sips")
    assert code == 1 and out.startswith("sips - scriptable image processing system.")
    (home / "Desktop" / "notes.txt").write_text("not a picture")
    out, err, code = sh(backend, "sips -g pixelWidth ~/Desktop/notes.txt")
    assert code == 13 and "not a valid file - skipping" in err
    out, err, code = sh(backend, "sips --bogus ~/Desktop/pic.png")
    assert code == 1 and err.startswith("Error: unknown option: --bogus")
    out, err, code = sh(backend, "sips -s format webp ~/Desktop/pic.png --out ~/Desktop/x.webp")
    assert code == 1 and "Unknown format: webp" in err
    out, err, code = sh(backend, "sips -s format heic ~/Desktop/pic.png --out ~/Desktop/x.heic")
    assert code == 1 and "not heic" in err
    out, err, code = sh(backend, "sips -z 10")
    assert (code, err) == (1, "Error: -z requires 2 arguments\nTry 'sips --help' for help using this tool\n")
    out, err, code = sh(backend, "sips -z 10 ~/Desktop/pic.png")  # the path is taken as the width: no file is left
    assert code == 13 and err.startswith("Error 4: no file was specified")
    out, err, code = sh(backend, "sips -z ten 10 ~/Desktop/pic.png")
    assert (code, err) == (1, "Error: --resampleHeightWidth needs a whole number of pixels, got 'ten'\n")
    out, err, code = sh(backend, "sips -Z 0 ~/Desktop/pic.png")
    assert code == 1 and "positive number of pixels" in err
    out, err, code = sh(backend, "sips -f sideways ~/Desktop/pic.png")
    assert code == 1 and "horizontal or vertical" in err
    out, err, code = sh(backend, "cp ~/Desktop/pic.png /tmp/p.png; sips -g pixelWidth /tmp/p.png")
    assert code == 1 and "work on files in the home folder" in err
    assert opened(home / "Desktop" / "pic.png").size == (40, 30)  # nothing was written
    out, err, code = sh(backend, "sips -Z 10 ~/Desktop/pic.png --out ~/Nowhere/small.png")
    assert (code, err) == (1, "sips: /Users/user/Nowhere/small.png: No such file or directory\n")


# ------------------------------------------------------------------------------------------ afinfo / afconvert

def test_afinfo_reports_a_generated_wave(backend, home):
    (home / "Music").mkdir()
    (home / "Music" / "tone.wav").write_bytes(tone_wav([{"freq": 440, "seconds": 1.5}], sample_rate=22050))
    out, err, code = sh(backend, "cd ~/Music && afinfo tone.wav")
    assert (err, code) == ("", 0)
    assert out.splitlines() == [
        "File:           tone.wav",
        "File type ID:   WAVE",
        "Num Tracks:     1",
        "----",
        "Data format:     1 ch,  22050 Hz, 'lpcm' (0x0000000C) 16-bit little-endian signed integer",
        "                no channel layout.",
        "estimated duration: 1.500000 sec",
        "audio bytes: 66150",
        "audio packets: 33075",
        "bit rate: 352800 bits per second",
        "packet size upper bound: 2",
        "maximum packet size: 2",
        "audio data file offset: 44",
        "optimized",
        "source bit depth: I16",
        "----",
    ]


def test_afinfo_errors(backend, home):
    out, err, code = sh(backend, "afinfo ~/Desktop/nothing.wav")
    assert (out, err, code) == ("", "AudioFileOpen failed ('wht?')\n", 1)
    out, err, code = sh(backend, "afinfo ~/Desktop/pic.png")
    assert (out, err, code) == ("", "AudioFileOpen failed ('typ?')\n", 1)
    out, err, code = sh(backend, "afinfo")
    assert code == 1 and "Usage: afinfo" in err


def test_afconvert_wave_to_aiff_keeps_the_samples(backend, home):
    (home / "a.wav").write_bytes(tone_wav([{"freq": 300, "seconds": 0.5}], sample_rate=16000, channels=2))
    out, err, code = sh(backend, "afconvert -f AIFF -d BEI16 ~/a.wav ~/a.aiff")
    assert (out, err, code) == ("", "", 0)
    src, dst = read_audio((home / "a.wav").read_bytes()), read_audio((home / "a.aiff").read_bytes())
    assert (dst.file_type, dst.rate, dst.channels, dst.fmt) == ("AIFF", 16000.0, 2, AudioFormat("int", 16, True))
    assert np.array_equal(np.round(src.samples * 32768), np.round(dst.samples * 32768))
    out, _, _ = sh(backend, "afinfo ~/a.aiff")
    assert "Data format:     2 ch,  16000 Hz, 'lpcm' (0x0000000E) 16-bit big-endian signed integer" in out
    assert "File type ID:   AIFF" in out and "audio data file offset: 54" in out


def test_afconvert_rate_channels_and_default_names(backend, home):
    (home / "b.wav").write_bytes(tone_wav([{"freq": 440, "seconds": 2.0}], sample_rate=32000, channels=2))
    out, err, code = sh(backend, "cd ~ && afconvert -f AIFF -d BEI16@22050 -c 1 b.wav")
    assert code == 0, err
    conv = read_audio((home / "b.aiff").read_bytes())  # no output name: the input's with the new extension
    assert (conv.rate, conv.channels, conv.frames) == (22050.0, 1, 44100)
    peak = np.fft.rfftfreq(conv.frames, 1 / conv.rate)[np.argmax(np.abs(np.fft.rfft(conv.samples[:, 0])))]
    assert abs(peak - 440) < 1
    sh(backend, "cd ~ && afconvert -d LEF32 b.wav b32.wav")  # the type comes from the extension
    f32 = read_audio((home / "b32.wav").read_bytes())
    assert (f32.file_type, f32.fmt, f32.channels) == ("WAVE", AudioFormat("float", 32, False), 2)
    sh(backend, "cd ~ && afconvert b.wav b.aifc")
    aifc = read_audio((home / "b.aifc").read_bytes())
    assert aifc.file_type == "AIFC" and aifc.fmt.bits == 16


def test_afconvert_errors(backend, home):
    (home / "c.wav").write_bytes(tone_wav([{"freq": 440, "seconds": 0.1}]))
    out, err, code = sh(backend, "afconvert -f AIFF -d LEI16 ~/c.wav ~/c.aiff")
    assert (err, code) == ("Error: ExtAudioFileCreateWithURL failed ('fmt?')\n", 1)
    assert not (home / "c.aiff").exists()
    out, err, code = sh(backend, "afconvert ~/missing.wav ~/x.aiff")
    assert code == 1 and err.endswith("Error: ExtAudioFileOpenURL failed ('wht?')\n")
    out, err, code = sh(backend, "afconvert ~/Desktop/pic.png ~/x.aiff")
    assert (err, code) == ("Error: ExtAudioFileOpenURL failed ('typ?')\n", 1)
    out, err, code = sh(backend, "afconvert -f m4af -d aac ~/c.wav ~/c.m4a")
    assert (code, err) == (1, "afconvert: the simulator writes WAVE, AIFF and AIFC files, not m4af\n")
    out, err, code = sh(backend, "afconvert -f AIFC -d aac ~/c.wav ~/c.aifc")
    assert code == 1 and "linear PCM only" in err
    out, err, code = sh(backend, "afconvert -f WAVE -d XYZ16 ~/c.wav ~/d.wav")
    assert code == 1 and "unknown data format 'XYZ16'" in err
    out, err, code = sh(backend, "afconvert")
    assert code == 1 and "Usage:" in err


@pytest.mark.parametrize("name", sorted(DATA_FORMATS))
def test_audio_round_trip_in_every_container_that_takes_the_format(name):
    fmt = AudioFormat(*DATA_FORMATS[name])
    x = np.stack([np.linspace(-0.9, 0.9, 101), np.linspace(0.5, -0.5, 101)], axis=1)
    step = 2.0 / (1 << fmt.bits) if fmt.kind != "float" else 1e-6
    for file_type in ("WAVE", "AIFF", "AIFC"):
        from mmenvs.macagent.formats.audio import container_accepts

        if not container_accepts(file_type, fmt):
            continue
        back = read_audio(write_audio(file_type, 44100.0, fmt, x))
        assert (back.file_type, back.rate, back.fmt, back.samples.shape) == (file_type, 44100.0, fmt, (101, 2))
        assert np.max(np.abs(back.samples - x)) <= step, (name, file_type)


def test_wav_generator_of_the_task_files():
    data = GENERATORS["wav"](tones=[{"freq": 1000, "seconds": 0.5}, {"freq": 0, "seconds": 0.25}], sample_rate=8000)
    audio = read_audio(data)
    assert (audio.frames, audio.rate) == (6000, 8000.0)
    head = np.abs(np.fft.rfft(audio.samples[:4000, 0]))
    assert np.fft.rfftfreq(4000, 1 / 8000)[np.argmax(head)] == 1000
    assert np.max(np.abs(audio.samples[4100:, 0])) == 0  # the silent segment
    with pytest.raises(ValueError, match="tones\\[0\\] needs 'seconds'"):
        GENERATORS["wav"](tones=[{"freq": 440}])


# ------------------------------------------------------------------------------------------ say

def test_say_writes_deterministic_aiff(backend, home):
    for name in ("a", "b"):
        out, err, code = sh(backend, f"say -o ~/{name}.aiff 'Move the car before nine.'")
        assert (out, err, code) == ("", "", 0)
    assert (home / "a.aiff").read_bytes() == (home / "b.aiff").read_bytes()
    audio = read_audio((home / "a.aiff").read_bytes())
    assert (audio.file_type, audio.rate, audio.channels, audio.fmt) == ("AIFF", 22050.0, 1, AudioFormat("int", 16, True))
    out, _, _ = sh(backend, "afinfo ~/a.aiff")
    assert f"estimated duration: {audio.duration:.6f} sec" in out


def test_say_duration_follows_text_and_rate():
    short = len(speech_samples("Hello there."))
    long = len(speech_samples("Hello there, this sentence has a good many more words in it."))
    slow = len(speech_samples("Hello there, this sentence has a good many more words in it.", rate=90))
    assert short < long < slow
    # about rate words a minute: 12 words at 175 wpm last a few seconds, not a fraction or a minute
    assert 2.0 < long / 22050 < 6.0
    x = speech_samples("Hello there, this sentence has a good many more words in it.")
    assert np.isfinite(x).all() and 0.3 < np.abs(x).max() <= 1.0


def test_say_voices_differ_in_pitch():
    def pitch(voice: str) -> float:
        x = speech_samples("ah", voice=voice)
        spectrum = np.abs(np.fft.rfft(x))
        freqs = np.fft.rfftfreq(len(x), 1 / 22050)
        band = (freqs > 60) & (freqs < 300)
        return float(freqs[band][np.argmax(spectrum[band])])
    assert pitch("Alex") < 140 < pitch("Samantha")


def test_say_options_and_inputs(backend, home):
    out, err, code = sh(backend, "say -v '?'")
    assert code == 0 and len(out.splitlines()) == len(VOICES)
    assert "Samantha            en_US    # Hello! My name is Samantha." in out.splitlines()
    sh(backend, "echo 'from standard input' | say -o ~/stdin.aiff")
    sh(backend, "say -o ~/arg.aiff from standard input")
    assert (home / "stdin.aiff").read_bytes() == (home / "arg.aiff").read_bytes()
    (home / "text.txt").write_text("from standard input")
    sh(backend, "say -f ~/text.txt -o ~/file.aiff")
    assert (home / "file.aiff").read_bytes() == (home / "arg.aiff").read_bytes()
    out, err, code = sh(backend, "say --data-format=LEI16@16000 -o ~/w.wav -v Daniel -r 200 hello")
    assert code == 0, err
    wav = read_audio((home / "w.wav").read_bytes())
    assert (wav.file_type, wav.rate, wav.fmt) == ("WAVE", 16000.0, AudioFormat("int", 16, False))
    assert sh(backend, "say hello") == ("", "", 0)  # spoken "aloud": nothing to hear in the sim


def test_say_errors_as_on_a_mac(backend, home):
    assert sh(backend, "say -o ~/x.wav hello") == ("", "Opening output file failed: fmt?\n", 1)
    assert sh(backend, "say -v Bob hi") == ("", "Voice `Bob' not found.\n", 1)
    out, err, code = sh(backend, "say -o ~/x.m4a hello")
    assert code == 1 and "writes AIFF, AIFC and WAVE files" in err
    assert sh(backend, "say -f ~/none.txt") == ("", "Error reading input file /Users/user/none.txt.\n", 1)
    out, err, code = sh(backend, "say -q hi")
    assert (code, err) == (1, "say: illegal option -- q\n")


# ------------------------------------------------------------------------------------------ the shell's other media programs

@pytest.mark.slow
def test_python_in_the_shell_has_numpy_matplotlib_and_pillow(backend, home):
    out, err, code = sh(backend, "python3 -c 'import numpy, matplotlib, PIL; matplotlib.use(\"Agg\"); "
                                 "import matplotlib.pyplot as plt; plt.plot([1, 2]); plt.savefig(\"/Users/user/p.png\"); print(\"ok\")'")
    assert (out, code) == ("ok\n", 0), err
    assert opened(home / "p.png").format == "PNG"
    out, _, _ = sh(backend, "printf 'import numpy\\nprint(numpy.zeros(2).sum())\\n' > ~/s.py && bash -c 'python3 ~/s.py'")
    assert out == "0.0\n"  # scripts started from the shell get the same python3


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed (./setup.sh installs it)")
def test_ffmpeg_extracts_a_frame_inside_the_shell(backend, home):
    out, err, code = sh(backend, "ffmpeg -v error -f lavfi -i 'color=c=red:s=64x48:r=5:d=1' -pix_fmt yuv420p ~/red.mp4 "
                                 "&& ffmpeg -v error -ss 0.5 -i ~/red.mp4 -frames:v 1 ~/frame.png")
    assert code == 0, err
    frame = opened(home / "frame.png").convert("RGB")
    r, g, b = frame.getpixel((32, 24))
    assert frame.size == (64, 48) and r > 200 and g < 60 and b < 60


def test_images_written_by_sips_read_back_through_the_image_size_getter(backend, home):
    from mmenvs.macagent.checkpoints import GETTERS, GetterContext

    sh(backend, "sips -z 17 23 ~/Desktop/pic.png --out ~/Desktop/odd.png")
    assert GETTERS["image_size"](GetterContext(backend), path="~/Desktop/odd.png") == [23, 17]
    assert io.BytesIO((home / "Desktop" / "odd.png").read_bytes()).read(8) == b"\x89PNG\r\n\x1a\n"


# ------------------------------------------------------------------------------------------ Image Events (AppleScript)

def test_image_events_opens_transforms_and_saves(backend, home):
    result = backend.run_applescript('''tell application "Image Events"
    launch
    set img to open POSIX file "/Users/user/Desktop/pic.png"
    set sizeBefore to dimensions of img
    scale img to size 20
    rotate img to angle 90
    set sizeAfter to dimensions of img
    save img as JPEG in POSIX file "/Users/user/Desktop/pic.jpg"
    close img
    return {sizeBefore, sizeAfter}
end tell''')
    assert result == "40, 30, 15, 20"
    saved = opened(home / "Desktop" / "pic.jpg")
    assert (saved.format, saved.size) == ("JPEG", (15, 20))
    assert opened(home / "Desktop" / "pic.png").size == (40, 30)  # saved elsewhere: the original is untouched
    # background-only: launching it did not take the front from Finder, and nothing is left open
    assert backend.current_desktop().active.name == "Finder"
    assert backend.app_state("Image Events") == {"running": True, "images": []}


def test_image_events_flip_crop_pad_and_properties(backend, home):
    result = backend.run_applescript('''tell application "Image Events"
    set img to open "/Users/user/Desktop/pic.png"
    flip img with horizontal
    crop img to dimensions {10, 6}
    pad img to dimensions {20, 10} with pad color {0, 0, 65535}
    save img
    get {dimensions, file type, bit depth, color space, name} of img
end tell''')
    assert result == "20, 10, PNG, millions of colors, RGB, pic.png"
    img = opened(home / "Desktop" / "pic.png").convert("RGB")
    assert img.size == (20, 10) and img.getpixel((0, 0)) == (0, 0, 255) and img.getpixel((10, 5)) == (128, 128, 128)
    assert backend.run_applescript('tell application "Image Events" to get name of every image') == "pic.png"
    out = backend.run_shell("osascript -e 'tell application \"Image Events\" to get dimensions of image \"pic.png\"'")
    assert out.stdout == "20, 10\n"


def test_image_events_errors(backend, home):
    from mmenvs.macagent.applescript import AppleScriptError

    cases = {
        'open POSIX file "/Users/user/Desktop/none.png"':
            "The file “none.png” couldn’t be opened because there is no such file. (-43)",
        'open POSIX file "/etc/hosts"': "Image Events can only reach files in the home folder",
        'save (open POSIX file "/Users/user/Desktop/pic.png") as PSD': "saves JPEG, PNG, TIFF, BMP and GIF, not PSD",
        'flip (open POSIX file "/Users/user/Desktop/pic.png")': "Some parameter is missing for flip",
        'scale (open POSIX file "/Users/user/Desktop/pic.png") to size 0': "to size needs a positive whole number of pixels",
    }
    (home / "Desktop" / "notes.txt").write_text("not a picture")
    cases['open POSIX file "/Users/user/Desktop/notes.txt"'] = "Can’t make file “notes.txt” into type image."
    for command, message in cases.items():
        with pytest.raises(AppleScriptError, match=message.replace("(", "\\(").replace(")", "\\)")):
            backend.run_applescript(f'tell application "Image Events" to {command}')
