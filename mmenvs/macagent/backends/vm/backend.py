"""``VMBackend``: MacAgent tasks on a real guest (a Docker-OSX macOS VM, or the Linux test guest)
behind the ``MacBackend`` interface.

* guests: labelled containers from a :class:`GuestConfig`, booted ahead by a warm :class:`GuestPool`;
  every episode runs on a fresh guest (``reset`` takes one, the last one is destroyed);
* commands: the agent's ``bash`` actions run in one persistent shell per episode (paramiko), setup and
  getters in exec sessions of their own (``run_command``), files over SFTP;
* screen: VNC (vncdotool) or the guest's capture command over SSH, whichever measured faster;
* GUI input: the pynput input agent (``guest_agent.py``), copied into the guest and driven over SSH;
* AppleScript: ``osascript`` on macOS guests; a Linux guest refuses it, and ``refuse_task`` refuses
  tasks that need macOS, saying why;
* faults: a dropped SSH connection is re-established; a guest that died (``docker kill``) makes every
  later call raise :class:`GuestLost` and sets ``infra_failure``, which the env puts in ``info`` and the
  runner records as an infrastructure failure; the next ``reset`` takes a new guest.
"""

from __future__ import annotations

import multiprocessing.util
import shlex
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Mapping, TypeVar

import numpy as np

from ..base import BackendError, MacBackend, ShellOutput, mouse_button, screen_point
from . import guest_agent
from .capture import CaptureError, VNCCapture, ssh_capture, time_capture
from .config import GuestConfig
from .guest import Guest, GuestLost, docker_client
from .pool import GuestPool
from .ssh import ConnectionLost

T = TypeVar("T")
AGENT_PATH = "/tmp/.mmenvs-input-agent.py"
STANDARD_DIRS = ("Desktop", "Documents", "Downloads")
#: Apps a Linux guest can start by name for ``open_app`` (the name as a command on its PATH).
_LINUX_APP_COMMANDS = {"terminal": "xterm", "xterm": "xterm", "textedit": "xedit", "xedit": "xedit"}


class TaskNeedsMacOS(BackendError):
    """A task that only a macOS guest can run (AppleScript, Mac apps), refused on another guest.
    ``infra_kind`` lets the runner record it apart from scores, with the reason."""

    infra_kind = "skipped_needs_macos"


class VMBackend(MacBackend):
    """A real guest. ``config`` (or the keyword options of :class:`GuestConfig`: ``image=``, ``os=``,
    ``user=``, ``key_path=``, …) says which; ``docker_url`` which Docker daemon (default: the
    environment's); ``pool_size`` how many guests boot ahead (0: each reset boots one).
    ``settle``: how long (seconds) a screenshot after GUI input or a command waits for the screen to show
    a change (VNC: for the server's next update; ssh capture: until two reads agree); an input that changes
    nothing costs this much once."""

    dedups_frames = False
    simulated_clock = False

    def __init__(self, config: GuestConfig | None = None, *, docker_url: str | None = None, client: Any = None,
                 pool_size: int = 1, screen_size: tuple[int, int] = (1280, 800), shell_timeout: float = 10.0,
                 max_output_chars: int = 20_000, settle: float = 0.5, lock_dir: str | Path | None = None,
                 **guest_options: Any) -> None:
        if config is None:
            config = GuestConfig.from_options({"screen_size": tuple(screen_size), **guest_options})
        elif guest_options:
            config = config.with_(**guest_options)
        self.config = config
        self.guest_os = config.os
        self.screen_size = tuple(config.screen_size)
        self.shell_timeout = float(shell_timeout)
        self.max_output_chars = int(max_output_chars)
        self.settle = float(settle)
        self._own_client = client is None
        self.client = client if client is not None else docker_client(docker_url)
        self.pool = GuestPool(config, self.client, size=pool_size, lock_dir=Path(lock_dir) if lock_dir else None,
                              prepare=self._prepare_guest)
        # An env that is never closed (a worker process of `mmenvs eval --workers N` ends with os._exit, which
        # skips atexit) still removes its guests: multiprocessing runs exit-priority finalizers at the end of
        # the main process and of its children alike.
        self._finalizer = multiprocessing.util.Finalize(self, self.pool.close, exitpriority=10)
        self.guest: Guest | None = None
        self.infra_failure: dict[str, str] | None = None
        self.capture_method: str | None = None
        self.capture_timings: dict[str, float] = {}
        self.last_reset = {"seconds": 0.0, "pool_hit": False}
        self.notes: list[str] = []  # what the backend did by itself (a reconnect), for the next shell output
        self._vnc: VNCCapture | None = None
        self._grab: Callable[[], np.ndarray] | None = None
        self._input_since_capture = False
        self._input_at = 0.0
        self._last_frame: np.ndarray | None = None
        self._closed = False

    #: Keyword options of the backend itself (the rest are GuestConfig fields).
    BACKEND_OPTIONS = ("docker_url", "client", "pool_size", "settle", "lock_dir", "max_output_chars")
    #: ``vm_image=`` value that means "the Linux test guest" (built or imported on first use: guest_image.py).
    TEST_GUEST = "test-guest"

    @classmethod
    def from_env_kwargs(cls, options: Mapping[str, Any], *, screen_size: tuple[int, int] = (1280, 800),
                        shell_timeout: float = 10.0) -> "VMBackend":
        """The backend for ``gym.make("MacAgent-v0", backend="vm", vm_image=…, pool_size=…, vm_<field>=…)``:
        ``vm_`` is dropped from each name; ``vm_config`` may give a whole :class:`GuestConfig`.
        ``vm_image="test-guest"`` (or no image) runs the Linux test guest (``mmenvs vm build-test-guest``)."""
        opts = {(k[3:] if k.startswith("vm_") else k): v for k, v in options.items()}
        backend_kw = {k: opts.pop(k) for k in cls.BACKEND_OPTIONS if k in opts}
        config = opts.pop("config", None)
        if isinstance(config, Mapping):
            opts = {**config, **opts}
            config = None
        if config is None:
            image = opts.get("image", cls.TEST_GUEST)
            if image == cls.TEST_GUEST or str(image).startswith("mmenvs-test-guest"):
                client = backend_kw.get("client") or docker_client(backend_kw.get("docker_url"))
                backend_kw["client"] = client
                from .guest_image import ensure_test_guest

                guest = ensure_test_guest(client)
                opts["image"] = guest.image
                opts.setdefault("user", guest.user)
                opts.setdefault("key_path", str(guest.key_path))
                opts.setdefault("home", guest.home)
                opts.setdefault("control_user", "root")  # the test guest trusts the same key for root
                backend = cls(None, screen_size=screen_size, shell_timeout=shell_timeout, **backend_kw, **opts)
                backend._own_client = "client" not in options and "vm_client" not in options
                return backend
        return cls(config, screen_size=screen_size, shell_timeout=shell_timeout, **backend_kw, **opts)

    # ------------------------------------------------------------------ lifecycle
    def reset(self, *, now: datetime, home: Path) -> None:
        """A fresh guest (the last one is destroyed). ``now`` cannot move a real clock: the guest's
        clock is the host's (tasks on a VM must not depend on their reference time). ``home`` is the
        host folder of the sim; a guest's home is its user's home, emptied by being new."""
        if self._closed:
            raise BackendError("the VM backend was closed; create a new one")
        self._drop_guest()
        self.infra_failure = None
        self.notes = []
        started = time.monotonic()
        hit = self.pool.ready_count > 0
        self.guest = self.pool.acquire()  # booted and prepared (agent running, VNC connected) by the pool
        try:
            self._setup_capture()
        except (ConnectionLost, CaptureError, OSError) as exc:  # a guest that broke at once: one more try
            self._drop_guest()
            self.guest = self.pool.acquire()
            hit = False
            try:
                self._setup_capture()
            except (ConnectionLost, CaptureError, OSError) as again:
                raise GuestLost(f"a fresh guest failed right after boot twice ({exc}; then {again})") from again
        self.last_reset = {"seconds": time.monotonic() - started, "pool_hit": hit}

    def _prepare_guest(self, guest: Guest) -> None:
        """Make a ready guest ready for an episode (on the pool's boot thread, so a warm guest costs the
        reset nothing): the input agent copied in and started, the standard folders made, a VNC client
        connected with its first frame."""
        link = guest.link
        link.put_bytes(Path(guest_agent.__file__).read_bytes(), AGENT_PATH, 0o644)
        dirs = " ".join(f'"$HOME"/{d}' for d in STANDARD_DIRS)
        out = link.exec(f"mkdir -p {dirs}", timeout=20.0)
        if out.exit_code != 0:
            raise ConnectionLost(f"could not make the standard folders: {out.text[-300:]}")
        link.agent(AGENT_PATH)
        vnc = VNCCapture("127.0.0.1", guest.vnc_port, self.config.vnc_password)
        try:
            vnc.grab()
        except CaptureError:
            vnc.close()
            vnc = None
        guest.vnc = vnc

    def _setup_capture(self) -> None:
        """Pick the screenshot path: with ``capture="auto"``, both are timed on the first guest and the
        faster is kept (``capture_timings``)."""
        guest = self.guest
        ssh_grab = ssh_capture(guest.link, self.guest_os, guest.display)
        self._vnc = getattr(guest, "vnc", None)
        choice = self.config.capture
        if choice == "auto" and self.capture_method is None:
            timings = {}
            for name, grab in (("vnc", self._vnc.grab if self._vnc else None), ("ssh", ssh_grab)):
                if grab is None:
                    continue
                try:
                    timings[name] = time_capture(grab)
                except (CaptureError, ConnectionLost, RuntimeError):
                    continue
            if not timings:
                raise CaptureError("neither VNC nor the guest's capture command gave a screenshot")
            self.capture_timings = timings
            self.capture_method = min(timings, key=timings.get)
        elif choice != "auto":
            self.capture_method = choice
        if self.capture_method == "vnc" and self._vnc is None:
            self._vnc = VNCCapture("127.0.0.1", guest.vnc_port, self.config.vnc_password)
        self._grab = self._vnc.grab if self.capture_method == "vnc" else ssh_grab
        if self.capture_method != "vnc" and self._vnc is not None:
            self._vnc.close()
            self._vnc = None

    def _drop_guest(self) -> None:
        if self._vnc is not None:
            self._vnc.close()
            self._vnc = None
        guest, self.guest = self.guest, None
        self._grab = None
        self._last_frame = None
        if guest is not None:
            self.pool.discard(guest)

    def close(self) -> None:
        """Destroy the current guest and the pool's. Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            self._drop_guest()
        finally:
            self._finalizer()  # the pool's close, once
            if self._own_client:
                try:
                    self.client.close()
                except Exception:  # noqa: BLE001
                    pass

    def recover(self, error: BaseException) -> str | None:
        """After an internal error: a dead guest cannot be repaired (None: the env ends the episode,
        ``infra_failure`` says why); a dropped connection is made again."""
        if isinstance(error, GuestLost) or self.infra_failure is not None:
            return None
        if isinstance(error, (ConnectionLost, CaptureError)):
            try:
                self._call(lambda: self._link().ensure())
                if self._vnc is not None:
                    self._vnc.close()
            except GuestLost:
                return None
            return "The connection to the guest dropped and was re-established."
        return ""

    def refuse_task(self, task: Any) -> None:
        """Raise ``TaskNeedsMacOS`` (with the reason) for a task this guest cannot run: a task of another
        platform (``platform`` field), AppleScript in its setup or getters on a non-macOS guest."""
        if self.guest_os == "macos":
            if getattr(task, "platform", "macos") != "macos":
                raise TaskNeedsMacOS(f"task {getattr(task, 'id', '?')!r} is a {task.platform} task; this guest runs macOS")
            return
        reasons = []
        platform = getattr(task, "platform", "macos")
        if platform != self.guest_os:
            reasons.append(f"it is a {platform} task (platform={platform!r})")
        for step in getattr(task, "setup", ()):
            if step.get("type") == "applescript":
                reasons.append("its setup runs AppleScript")
                break
        for checkpoint in getattr(task, "checkpoints", ()):
            if checkpoint.getter.get("type") == "applescript":
                reasons.append(f"checkpoint {checkpoint.name!r} reads state with AppleScript")
                break
        if reasons:
            raise TaskNeedsMacOS(f"task {getattr(task, 'id', '?')!r} needs a macOS guest ({'; '.join(reasons)}); "
                                 f"this guest runs {self.guest_os} (image {self.config.image})")

    # ------------------------------------------------------------------ faults
    def _link(self):
        if self.guest is None or self.guest.link is None:
            raise BackendError("the VM backend has no guest yet; call reset() first")
        return self.guest.link

    def _lost(self, why: str) -> GuestLost:
        name = self.guest.name if self.guest is not None else "?"
        self.infra_failure = {"kind": GuestLost.infra_kind, "error": f"guest {name} is gone ({why})"}
        return GuestLost(self.infra_failure["error"])

    def _call(self, op: Callable[[], T]) -> T:
        """Run ``op`` against the guest: a dropped connection is made again and ``op`` retried once;
        a guest that is not running any more raises ``GuestLost`` (and stays lost until reset)."""
        if self.infra_failure is not None:
            raise GuestLost(self.infra_failure["error"])
        try:
            return op()
        except (ConnectionLost, CaptureError) as first:
            if self.guest is None or not self.guest.running():
                raise self._lost(f"{type(first).__name__}: {first}") from first
            link = self._link()
            link.drop()
            try:
                link.ensure()
                link.reconnects += 1
                self.notes.append("[the connection to the guest dropped and was re-established; the shell was restarted]")
                if self._vnc is not None:
                    self._vnc.close()
                return op()
            except (ConnectionLost, CaptureError) as second:
                if not self.guest.running():
                    raise self._lost(f"{type(second).__name__}: {second}") from second
                raise

    # ------------------------------------------------------------------ observation
    def screenshot(self) -> np.ndarray:
        """The screen (H×W×3 uint8, read-only). After GUI input it is read until two reads agree (at
        most ``settle`` seconds), so the frame shows the input's effect once the guest has drawn it."""
        def grab() -> np.ndarray:
            if self._grab is None:
                raise BackendError("the VM backend has no guest yet; call reset() first")
            if self._input_since_capture and self.capture_method == "vnc" and self._vnc is not None:
                return self._vnc.grab(after=self._input_at, patience=self.settle)
            return self._grab()

        frame = self._call(grab)
        if self._input_since_capture and self.settle > 0 and self.capture_method != "vnc":
            deadline = time.monotonic() + self.settle
            time.sleep(0.03)
            while time.monotonic() < deadline:
                again = self._call(grab)
                if np.array_equal(again, frame):
                    break
                frame = again
                time.sleep(0.03)
        self._input_since_capture = False
        frame = np.ascontiguousarray(frame, dtype=np.uint8)
        if frame.shape[:2] != (self.screen_size[1], self.screen_size[0]):
            self.screen_size = (int(frame.shape[1]), int(frame.shape[0]))
        frame.flags.writeable = False
        self._last_frame = frame
        return frame

    def accessibility_tree(self) -> str:
        """The screen and its top-level windows (front-most first) with their titles and bounds."""
        w, h = self.screen_size
        lines = [f"AXScreen [0, 0, {w}, {h}]"]
        if self.guest_os == "macos":
            script = ('tell application "System Events" to get {name, position, size} of every window of '
                      '(every process whose visible is true)')
            try:
                lines.append(f"  AXText \"windows\" value={self.run_applescript(script)!r}")
            except Exception:  # noqa: BLE001 - the tree is best effort on macOS
                pass
            return "\n".join(lines)
        for title, x, y, width, height in self._agent({"op": "windows"}) or []:
            name = str(title).replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'  AXWindow "{name}" [{x}, {y}, {width}, {height}]')
        return "\n".join(lines)

    # ------------------------------------------------------------------ GUI input
    def _agent(self, request: dict[str, Any]) -> Any:
        def send() -> Any:
            link = self._link()
            try:
                return link.agent(AGENT_PATH).call(request)
            except (EOFError, OSError) as exc:
                raise ConnectionLost(f"input agent: {type(exc).__name__}: {exc}") from exc

        try:
            return self._call(send)
        except ValueError as exc:  # the agent refused the input
            raise BackendError(str(exc)) from None

    def _input(self, request: dict[str, Any]) -> None:
        self._agent(request)
        self._changed()

    def _changed(self) -> None:
        """Something was sent that may change the screen: the next screenshot waits for it to show."""
        self._input_since_capture = True
        self._input_at = time.monotonic()


    @staticmethod
    def _key(key: str) -> str:
        if not guest_agent.known_key(key):
            raise BackendError(f"unknown key name {key!r}; use pyautogui names such as 'enter', 'esc', 'tab', "
                               "'command', 'shift', 'left', 'a'")
        return key if len(key) == 1 else key.lower()

    def mouse_move(self, x: int, y: int) -> None:
        xi, yi = screen_point(x, y, self.screen_size)
        self._input({"op": "move", "x": xi, "y": yi})

    def mouse_down(self, button: str = "left") -> None:
        self._input({"op": "down", "button": mouse_button(button)})

    def mouse_up(self, button: str = "left") -> None:
        self._input({"op": "up", "button": mouse_button(button)})

    def click(self, x: int, y: int, button: str = "left", clicks: int = 1) -> None:
        xi, yi = screen_point(x, y, self.screen_size)
        try:
            n = int(clicks)
        except (TypeError, ValueError):
            raise BackendError(f"clicks must be 1, 2 or 3, got {clicks!r}") from None
        if not 1 <= n <= 3:
            raise BackendError(f"clicks must be 1, 2 or 3, got {clicks!r}")
        self._input({"op": "click", "x": xi, "y": yi, "button": mouse_button(button), "clicks": n})

    def drag_to(self, x: int, y: int, button: str = "left") -> None:
        xi, yi = screen_point(x, y, self.screen_size)
        self._input({"op": "drag", "x": xi, "y": yi, "button": mouse_button(button)})

    def scroll(self, amount: int, x: int | None = None, y: int | None = None) -> None:
        try:
            n = int(amount)
        except (TypeError, ValueError):
            raise BackendError(f"scroll amount must be an integer, got {amount!r}") from None
        request: dict[str, Any] = {"op": "scroll", "amount": n}
        if x is not None and y is not None:
            request["x"], request["y"] = screen_point(x, y, self.screen_size)
        self._input(request)

    def key_down(self, key: str) -> None:
        self._input({"op": "key_down", "key": self._key(key)})

    def key_up(self, key: str) -> None:
        self._input({"op": "key_up", "key": self._key(key)})

    def press(self, key: str) -> None:
        self._input({"op": "press", "key": self._key(key)})

    def hotkey(self, *keys: str) -> None:
        if not keys:
            raise BackendError("hotkey needs at least one key")
        self._input({"op": "hotkey", "keys": [self._key(k) for k in keys]})

    def type_text(self, text: str) -> None:
        if not isinstance(text, str):
            raise BackendError(f"text to type must be a string, got {type(text).__name__}")
        if text:
            self._input({"op": "type", "text": text})

    # ------------------------------------------------------------------ scripting
    def run_shell(self, command: str, timeout: float | None = None) -> ShellOutput:
        """Run ``command`` in the episode's persistent shell on the guest (cwd and variables persist)."""
        limit = self.shell_timeout if timeout is None else float(timeout)

        def run() -> tuple[ShellOutput, str]:
            return self._link().shell(command, limit)

        out, note = self._call(run)
        notes = [*self.notes, note] if note else list(self.notes)
        self.notes = []
        if notes:
            note_text = "\n".join(dict.fromkeys(notes))
            out = ShellOutput(note_text + "\n" + out.stdout, out.stderr, out.exit_code, out.timed_out, out.truncated)
        return out

    def run_command(self, command: str, timeout: float | None = None) -> ShellOutput:
        """Run ``command`` in an SSH session of its own (setup steps and getters: the agent's shell state
        cannot change what they see)."""
        limit = self.shell_timeout if timeout is None else float(timeout)
        return self._call(lambda: self._link().exec(command, timeout=limit))

    def run_applescript(self, source: str) -> str:
        """``osascript`` on a macOS guest; a Linux guest has no AppleScript (``BackendError``)."""
        if self.guest_os != "macos":
            raise BackendError(f"AppleScript needs a macOS guest; this guest runs {self.guest_os}")
        out = self._call(lambda: self._link().exec("osascript -", timeout=self.shell_timeout, stdin=source.encode()))
        if out.timed_out or out.exit_code != 0:
            from mmenvs.macagent.applescript.errors import AppleScriptError

            raise AppleScriptError(out.stderr.strip() or f"osascript exited with {out.exit_code}")
        return out.stdout.rstrip("\n")

    def open_app(self, app: str) -> None:
        """``open -a`` on macOS; on Linux the app's command (Terminal: xterm, TextEdit: xedit) in the background."""
        if self.guest_os == "macos":
            command = f"open -a {shlex.quote(app)}"
        else:
            name = _LINUX_APP_COMMANDS.get(str(app).lower(), str(app))
            if not name.replace("-", "").replace("_", "").isalnum():
                raise BackendError(f"no app named {app!r} on this guest")
            command = f"command -v {shlex.quote(name)} >/dev/null && (nohup {shlex.quote(name)} >/dev/null 2>&1 &)"
        out = self.run_command(command, timeout=20.0)
        if out.exit_code != 0:
            raise BackendError(f"Unable to find application named '{app}' on this {self.guest_os} guest")
        self._changed()

    # ------------------------------------------------------------------ for benches and tests
    def status(self) -> Mapping[str, Any]:
        guest = self.guest
        return {"guest": guest.name if guest else None, "capture": self.capture_method,
                "capture_timings": dict(self.capture_timings), "pool_ready": self.pool.ready_count,
                "pool_hits": self.pool.hits, "pool_misses": self.pool.misses,
                "reconnects": guest.link.reconnects if guest and guest.link else 0, **self.last_reset}
