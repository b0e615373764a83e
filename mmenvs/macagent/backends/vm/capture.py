"""Screenshots of a guest: from its VNC server (a small RFB client) or its own capture command over SSH
(``xwd`` on X11, ``screencapture`` on macOS). ``capture="auto"`` measures both on the guest and keeps
the faster (the measured times are in ``VMBackend.capture_timings``)."""

from __future__ import annotations

import io
import socket
import struct
import threading
import time
from typing import Callable

import numpy as np

from .ssh import SSHLink


class CaptureError(RuntimeError):
    """The screen could not be read (the message says how and why)."""


# ---------------------------------------------------------------------------------------------- xwd
def parse_xwd(data: bytes) -> np.ndarray:
    """An XWD (X Window Dump, version 7) ZPixmap of 24/32 bits per pixel → H×W×3 uint8 RGB."""
    if len(data) < 100:
        raise CaptureError(f"xwd output too short ({len(data)} bytes)")
    header = np.frombuffer(data[:100], dtype=">u4")
    header_size, version, pixmap_format, _depth, width, height = (int(v) for v in header[:6])
    byte_order, bits_per_pixel, bytes_per_line = int(header[7]), int(header[11]), int(header[12])
    red_mask, green_mask, blue_mask = int(header[14]), int(header[15]), int(header[16])
    ncolors = int(header[19])
    if version != 7 or pixmap_format != 2 or bits_per_pixel not in (24, 32):
        raise CaptureError(f"unsupported xwd image (version {version}, format {pixmap_format}, {bits_per_pixel} bpp)")
    start = header_size + 12 * ncolors
    if not (0 < width <= 16384 and 0 < height <= 16384) or bytes_per_line < width * (bits_per_pixel // 8):
        raise CaptureError(f"implausible xwd image ({width}x{height}, {bytes_per_line} bytes per line)")
    need = start + bytes_per_line * height
    if len(data) < need:
        raise CaptureError(f"xwd output cut short ({len(data)} of {need} bytes)")
    step = bits_per_pixel // 8
    rows = np.frombuffer(data, dtype=np.uint8, count=bytes_per_line * height, offset=start).reshape(height, bytes_per_line)
    pixels = rows[:, : width * step].reshape(height, width, step)
    if byte_order == 0:  # LSBFirst: the pixel's low byte first
        index = {0x0000FF: 0, 0x00FF00: 1, 0xFF0000: 2}
    else:
        index = {0x0000FF: step - 1, 0x00FF00: step - 2, 0xFF0000: step - 3}
    try:
        order = [index[red_mask], index[green_mask], index[blue_mask]]
    except KeyError:
        raise CaptureError(f"unsupported xwd colour masks {red_mask:#x}/{green_mask:#x}/{blue_mask:#x}") from None
    return np.ascontiguousarray(pixels[:, :, order])


def ssh_capture(link: SSHLink, guest_os: str, display: str | None = None) -> Callable[[], np.ndarray]:
    """A function that reads the screen with the guest's own tool over SSH."""
    if guest_os == "macos":
        def grab() -> np.ndarray:
            from PIL import Image

            path = "/tmp/.mmenvs-screen.png"
            out = link.exec(f"screencapture -x -t png {path}", timeout=20.0)
            if out.exit_code != 0:
                raise CaptureError(f"screencapture failed: {out.text[-300:]}")
            with Image.open(io.BytesIO(link.get_bytes(path))) as image:
                return np.asarray(image.convert("RGB"))
        return grab
    prefix = f"DISPLAY={display} " if display else ""

    def grab_x11() -> np.ndarray:
        return parse_xwd(link.exec_bytes(f"{prefix}xwd -root -silent", timeout=20.0))
    return grab_x11


# ---------------------------------------------------------------------------------------------- vnc
class VNCCapture:
    """A small synchronous RFB 3.8 client kept open on the guest's VNC server: each :meth:`grab` asks
    for a full (non-incremental) update in raw 32-bit encoding and returns the framebuffer.

    vncdotool's threaded API was tried first: after a few captures its proxy kept returning an old
    frame (its result queue fell out of step with the server's updates), so the screenshot path speaks
    the protocol itself (security "None" or "VNC authentication")."""

    def __init__(self, host: str, port: int, password: str | None = None, timeout: float = 20.0) -> None:
        self.host, self.port = host, port
        self.password = password
        self.timeout = timeout
        self.sock: socket.socket | None = None
        self.size = (0, 0)
        self.frame: np.ndarray | None = None

    def _recv(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(min(n - len(buf), 1 << 20))
            if not chunk:
                raise CaptureError(f"VNC {self.host}:{self.port}: the server closed the connection")
            buf.extend(chunk)
        return bytes(buf)

    def _recv_into(self, view: memoryview) -> None:
        got = 0
        while got < len(view):
            n = self.sock.recv_into(view[got:])
            if n == 0:
                raise CaptureError(f"VNC {self.host}:{self.port}: the server closed the connection")
            got += n

    def connect(self) -> None:
        try:
            self.sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            version = self._recv(12)
            if not version.startswith(b"RFB "):
                raise CaptureError(f"VNC {self.host}:{self.port}: not an RFB server ({version!r})")
            self.sock.sendall(b"RFB 003.008\n")
            count = self._recv(1)[0]
            if count == 0:
                reason = self._recv(struct.unpack(">I", self._recv(4))[0])
                raise CaptureError(f"VNC {self.host}:{self.port}: refused: {reason.decode(errors='replace')}")
            types = self._recv(count)
            if 1 in types and self.password is None:
                self.sock.sendall(b"\x01")
            elif 2 in types and self.password is not None:
                self.sock.sendall(b"\x02")
                self.sock.sendall(_vnc_auth_response(self.password, self._recv(16)))
            else:
                raise CaptureError(f"VNC {self.host}:{self.port}: no usable security type in {list(types)} "
                                   f"(password {'given' if self.password else 'not given'})")
            if struct.unpack(">I", self._recv(4))[0] != 0:
                raise CaptureError(f"VNC {self.host}:{self.port}: authentication failed")
            self.sock.sendall(b"\x01")  # shared
            width, height = struct.unpack(">HH", self._recv(4))
            self._recv(16)  # the server's pixel format: we set our own
            self._recv(struct.unpack(">I", self._recv(4))[0])  # desktop name
            if not (0 < width <= 16384 and 0 < height <= 16384):
                raise CaptureError(f"VNC {self.host}:{self.port}: a {width}x{height} screen is not plausible")
            self.size = (width, height)
            # 32 bpp, depth 24, little endian, true colour, 255/255/255, shifts 16/8/0: bytes B, G, R, X
            pixel_format = struct.pack(">BBBBHHHBBB3x", 32, 24, 0, 1, 255, 255, 255, 16, 8, 0)
            self.sock.sendall(b"\x00\x00\x00\x00" + pixel_format)
            self.sock.sendall(struct.pack(">BxHi", 2, 1, 0))  # SetEncodings: raw only
            self._bgrx = np.zeros((height, width, 4), dtype=np.uint8)
        except OSError as exc:
            self.close()
            raise CaptureError(f"VNC {self.host}:{self.port}: {type(exc).__name__}: {exc}") from exc
        except CaptureError:
            self.close()
            raise

    # x11vnc (like most servers) scans the screen for changes only while an incremental update request
    # is outstanding; a full request is answered from its last scan. So a reader thread keeps one
    # incremental request outstanding at all times and applies every update to the local framebuffer;
    # a grab waits until the stream has been quiet for ``quiet`` seconds and copies the framebuffer.
    quiet = 0.04

    def _start_reader(self) -> None:
        self._lock = threading.Lock()
        self._last_update = time.monotonic()
        self._updates = 0
        self._error: BaseException | None = None
        width, height = self.size
        self.sock.settimeout(None)
        self.sock.sendall(struct.pack(">BBHHHH", 3, 0, 0, 0, width, height))
        self._reader = threading.Thread(target=self._read_updates, name="mmenvs-vnc-reader", daemon=True)
        self._reader.start()

    def _read_updates(self) -> None:
        width, height = self.size
        sock = self.sock
        try:
            while sock is self.sock:
                kind = self._recv(1)[0]
                if kind == 0:  # FramebufferUpdate
                    count = struct.unpack(">xH", self._recv(3))[0]
                    for _ in range(count):
                        x, y, w, h, encoding = struct.unpack(">HHHHi", self._recv(12))
                        if encoding != 0:
                            raise CaptureError(f"VNC: unexpected encoding {encoding}")
                        if x + w > width or y + h > height:
                            raise CaptureError(f"VNC: rectangle {x},{y},{w}x{h} outside the {width}x{height} screen")
                        rect = np.frombuffer(self._recv(w * h * 4), dtype=np.uint8).reshape(h, w, 4)
                        with self._lock:
                            self._bgrx[y:y + h, x:x + w] = rect
                    with self._lock:
                        self._updates += 1
                        self._last_update = time.monotonic()
                    sock.sendall(struct.pack(">BBHHHH", 3, 1, 0, 0, width, height))  # the next one, incremental
                elif kind == 1:  # SetColourMapEntries (not used with true colour)
                    _, _first, n = struct.unpack(">xHH", self._recv(5))
                    self._recv(6 * n)
                elif kind == 2:  # Bell
                    continue
                elif kind == 3:  # ServerCutText
                    self._recv(3)
                    self._recv(struct.unpack(">I", self._recv(4))[0])
                else:
                    raise CaptureError(f"VNC: unexpected server message {kind}")
        except BaseException as exc:  # noqa: BLE001 - reported by the next grab
            self._error = exc

    def grab(self, after: float | None = None, patience: float = 0.0) -> np.ndarray:
        """The framebuffer once the update stream has been quiet for ``quiet`` seconds. With ``after``
        (a ``time.monotonic()`` reading, e.g. when input was sent) it also waits, up to ``patience``
        seconds past ``after``, for an update that arrived after it: the server's next scan showing the
        input's effect."""
        if self.sock is None:
            self.connect()
            self._start_reader()
        deadline = time.monotonic() + self.timeout
        while after is not None:
            with self._lock:
                seen = self._last_update > after
            if seen or time.monotonic() > after + patience or self._error is not None:
                break
            time.sleep(0.005)
        while True:
            if self._error is not None:
                error = self._error
                self.close()
                raise CaptureError(f"VNC {self.host}:{self.port}: {type(error).__name__}: {error}")
            with self._lock:
                idle = time.monotonic() - self._last_update
                if self._updates and idle >= self.quiet:
                    return self._bgrx[:, :, 2::-1].copy()
            if time.monotonic() > deadline:
                self.close()
                raise CaptureError(f"VNC {self.host}:{self.port}: no framebuffer within {self.timeout:g} s")
            time.sleep(max(0.002, self.quiet - idle) if self._updates else 0.005)

    def close(self) -> None:
        sock, self.sock = self.sock, None
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass


def _vnc_auth_response(password: str, challenge: bytes) -> bytes:
    """VNC authentication: the challenge DES-encrypted with the password (8 bytes, each bit-reversed)."""
    try:
        from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
    except ImportError:  # older cryptography
        from cryptography.hazmat.primitives.ciphers.algorithms import TripleDES
    from cryptography.hazmat.primitives.ciphers import Cipher, modes

    key = bytes(int(f"{b:08b}"[::-1], 2) for b in password.encode("latin-1")[:8].ljust(8, b"\0"))
    encryptor = Cipher(TripleDES(key * 3), modes.ECB()).encryptor()
    return encryptor.update(challenge) + encryptor.finalize()


def time_capture(grab: Callable[[], np.ndarray], repeats: int = 2) -> float:
    """Median seconds of ``repeats`` captures after one warm-up."""
    grab()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        grab()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]
