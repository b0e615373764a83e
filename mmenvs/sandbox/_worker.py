"""The sandbox worker and the wire format it shares with the parent.

This file has two roles:

* The parent imports it as ``mmenvs.sandbox._worker`` for :func:`encode_frame` /
  :func:`FrameReader` (the wire format).
* The parent starts a worker as ``python -S -c <this file's source> RFD WFD``; then the
  ``__main__`` block runs :func:`main`.  Inside the OS sandbox the repository is not visible, so
  this file must stay self-contained: only the standard library at module level, numpy lazily.

Wire format (both directions): one frame = 12-byte header ``!IQ`` (JSON length, blob length),
the UTF-8 JSON document ``[blob specs, message]``, then the raw bytes of every blob.  Numpy arrays
and bytes inside a message are replaced by ``{"\\u0000nd": i}`` / ``{"\\u0000by": i}`` and their
bytes travel as blob i, described by spec i as ``[dtype.str, shape]``.  Nothing is ever pickled:
the parent only parses JSON and builds arrays of plain numeric dtypes.
"""

from __future__ import annotations

import _thread
import json
import os
import struct
import sys

HEADER = struct.Struct("!IQ")
ND_KEY = "\x00nd"  # marker keys start with NUL so no ordinary dict collides with them
BYTES_KEY = "\x00by"
# Only plain numeric arrays cross the wire: bool, signed/unsigned int, float, complex.
ALLOWED_DTYPE_KINDS = frozenset("biufc")


class WireError(ValueError):
    """A value that cannot cross the sandbox boundary, or a malformed frame."""


class _Encoder(json.JSONEncoder):
    """JSON with arrays and bytes turned into blob markers (collected in ``self.blobs``)."""

    def __init__(self) -> None:
        # ensure_ascii: lone surrogates (e.g. printed by agent code) stay valid JSON as \\udXXX.
        super().__init__(separators=(",", ":"))
        self.blobs: list = []

    def default(self, obj):
        blobs = self.blobs
        if isinstance(obj, (bytes, bytearray, memoryview)):
            data = bytes(obj)
            blobs.append(("|u1", [len(data)], data))
            return {BYTES_KEY: len(blobs) - 1}
        np = sys.modules.get("numpy")  # if numpy was never imported, no value can be an array
        if np is not None:
            if isinstance(obj, np.ndarray):
                if obj.dtype.kind not in ALLOWED_DTYPE_KINDS:
                    raise WireError(f"a numpy array of dtype {obj.dtype} cannot cross the sandbox; "
                                    "use a numeric dtype (bool, int, uint, float, complex)")
                arr = np.ascontiguousarray(obj)
                blobs.append((arr.dtype.str, list(arr.shape), arr.data.cast("B") if arr.size else b""))
                return {ND_KEY: len(blobs) - 1}
            if isinstance(obj, np.generic):
                return obj.item()
        raise WireError(f"a {type(obj).__name__} cannot cross the sandbox; use JSON values "
                        "(None, bool, int, float, str, list, tuple, dict), bytes or numpy arrays")


_encoders: dict = {}  # one encoder per thread: building a JSONEncoder per message is slow


def encode_frame(msg: dict) -> list:
    """Encode a message dict as a list of buffers (header, JSON, blobs) ready to write.

    The JSON document is ``[blob specs, message]``; one C-accelerated encoding pass turns
    arrays and bytes into markers (dict keys ``"\\u0000nd"`` / ``"\\u0000by"`` are reserved).
    """
    key = _thread.get_ident()
    enc = _encoders.get(key)
    if enc is None:
        enc = _encoders[key] = _Encoder()
    enc.blobs = blobs = []
    try:
        text = enc.encode(msg)
    except (TypeError, ValueError, RecursionError) as exc:
        if isinstance(exc, WireError):
            raise
        raise WireError(f"the value cannot cross the sandbox: {exc}") from None
    finally:
        enc.blobs = []
    specs = enc.encode([[dt, shape] for dt, shape, _ in blobs]) if blobs else "[]"
    body = ("[" + specs + "," + text + "]").encode("ascii")
    datas = [data for _, _, data in blobs]
    blob_len = sum(len(d) if isinstance(d, bytes) else d.nbytes for d in datas)
    return [HEADER.pack(len(body), blob_len), body, *datas]


def unencodable_char(text: str, errors: str = "strict") -> str | None:
    """None when ``text`` is valid Unicode text (encodable as UTF-8 with ``errors``; "surrogateescape"
    lets U+DC80..U+DCFF stand for raw bytes); else which character is not, and where. Source code and
    commands with a lone surrogate cannot be parsed or sent: they are refused with this message."""
    try:
        text.encode("utf-8", errors)
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        column = exc.start - (text.rfind("\n", 0, exc.start) + 1) + 1
        return (f"a lone surrogate character U+{ord(text[exc.start]):04X} at line {line}, column {column} "
                "(half of a UTF-16 pair, not a character)")
    return None


def _nbytes(dtype_str: str, shape: list, max_bytes: int) -> int:
    import numpy as np  # only reached when an array actually crosses

    try:
        dt = np.dtype(dtype_str)
    except TypeError as exc:
        raise WireError(f"bad dtype {dtype_str!r} in frame") from exc
    if dt.kind not in ALLOWED_DTYPE_KINDS or dt.hasobject or dt.names is not None or dt.subdtype is not None:
        raise WireError(f"dtype {dtype_str!r} is not a plain numeric dtype")
    if not isinstance(shape, list) or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s for s in shape):
        raise WireError(f"bad array shape {shape!r} in frame")
    n = dt.itemsize
    for s in shape:
        n *= s
        if n > max_bytes:
            raise WireError(f"array of shape {shape} exceeds the {max_bytes}-byte message limit")
    return n


def decode_frame(body: bytes, blob: bytearray | bytes, max_bytes: int) -> dict:
    """Decode one frame's JSON document and blob bytes back into a message dict."""
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise WireError(f"malformed JSON in frame: {exc}") from None
    if not (isinstance(doc, list) and len(doc) == 2 and isinstance(doc[0], list) and isinstance(doc[1], dict)):
        raise WireError("frame document is not [blob specs, message object]")
    specs, msg = doc
    if not specs:
        if blob:
            raise WireError("frame blob section is longer than its specs say")
        return msg  # the common case: plain JSON, nothing to rebuild
    arrays: list = []
    offset = 0
    for spec in specs:
        if not (isinstance(spec, list) and len(spec) == 2 and isinstance(spec[0], str)):
            raise WireError(f"bad blob spec {spec!r}")
        n = _nbytes(spec[0], spec[1], max_bytes)
        if offset + n > len(blob):
            raise WireError("frame blob section is shorter than its specs say")
        arrays.append((spec[0], spec[1], offset, n))
        offset += n
    if offset != len(blob):
        raise WireError("frame blob section is longer than its specs say")

    def blob_index(i):
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(arrays):
            raise WireError(f"frame refers to missing blob {i!r}")
        return arrays[i]

    def build(i):
        import numpy as np

        dt, shape, off, n = blob_index(i)
        dtype = np.dtype(dt)
        # frombuffer over a bytearray gives a writable array without another copy.
        return np.frombuffer(blob, dtype=dtype, count=n // dtype.itemsize, offset=off).reshape(shape)

    def walk(v):
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            if len(v) == 1 and ND_KEY in v:
                return build(v[ND_KEY])
            if len(v) == 1 and BYTES_KEY in v:
                _, _, off, n = blob_index(v[BYTES_KEY])
                return bytes(blob[off:off + n])
            return {k: walk(x) for k, x in v.items()}
        return v

    try:
        return walk(msg)
    except RecursionError:
        raise WireError("frame nests too deeply") from None


def write_frame(fd: int, msg: dict) -> None:
    """Encode ``msg`` and write it fully to ``fd``."""
    bufs = [memoryview(b).cast("B") for b in encode_frame(msg)]
    total = sum(len(b) for b in bufs)
    written = os.writev(fd, bufs)
    if written == total:
        return
    data = memoryview(b"".join(bytes(b) for b in bufs))[written:]
    while data:
        data = data[os.write(fd, data):]


class BlockingReader:
    """Reads frames from a blocking fd, taking whole chunks so a small frame costs one syscall."""

    def __init__(self, fd: int, max_bytes: int) -> None:
        self.fd = fd
        self.max_bytes = max_bytes
        self.buf = bytearray()

    def _take(self, n: int) -> bytearray:
        if len(self.buf) >= n:
            out = self.buf[:n]
            del self.buf[:n]
            return out
        out = bytearray(n)
        have = len(self.buf)
        out[:have] = self.buf
        self.buf = bytearray()
        view = memoryview(out)
        while have < n:
            if n - have < 65536:
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    raise EOFError("sandbox channel closed")
                k = min(len(chunk), n - have)
                view[have:have + k] = chunk[:k]
                self.buf += chunk[k:]
            else:  # large blobs go straight into place
                k = os.readv(self.fd, [view[have:]])
                if k == 0:
                    raise EOFError("sandbox channel closed")
            have += k
        return out

    def read_frame(self) -> dict:
        body_len, blob_len = HEADER.unpack(bytes(self._take(HEADER.size)))
        if body_len + blob_len > self.max_bytes:
            raise WireError(f"frame of {body_len + blob_len} bytes exceeds the limit of {self.max_bytes}")
        body = self._take(body_len)
        blob = self._take(blob_len) if blob_len else bytearray()
        return decode_frame(bytes(body), blob, self.max_bytes)


# --------------------------------------------------------------------------------------------
# Worker side
# --------------------------------------------------------------------------------------------

class _CappedWriter:
    """A text stream that keeps the first ``cap`` characters and counts the rest."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: list = []
        self.kept = 0
        self.total = 0

    def write(self, s) -> int:
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        n = len(s)
        self.total += n
        room = self.cap - self.kept
        if room > 0:
            piece = s if n <= room else s[:room]
            self.parts.append(piece)
            self.kept += len(piece)
        return n

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:
        return "utf-8"

    def text(self) -> str:
        return "".join(self.parts)


def _classify(exc: BaseException) -> str:
    if isinstance(exc, MemoryError):
        return "memory"
    if isinstance(exc, RecursionError):
        return "recursion"
    return "exception"


def _short_traceback(exc: BaseException, max_frames: int = 6) -> str:
    import traceback

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith("<cell")]
    dropped = 0
    if len(frames) > max_frames:
        dropped = len(frames) - max_frames
        frames = frames[-max_frames:]
    lines = []
    if frames:
        lines.append("Traceback (most recent call last):\n")
        if dropped:
            lines.append(f"  ... {dropped} earlier frames hidden ...\n")
        lines.extend(traceback.StackSummary.from_list(frames).format())
    lines.extend(traceback.format_exception_only(type(exc), exc))
    text = "".join(lines)
    return text if len(text) <= 4000 else text[:2000] + "\n  ...\n" + text[-1900:]


class _Worker:
    def __init__(self, rfd: int, wfd: int) -> None:
        self.rfd, self.wfd = rfd, wfd
        self.pid = os.getpid()
        self.max_bytes = 1 << 30
        self.max_output = 10_000
        self.max_value = 10_000
        self.cell = 0
        self.namespace: dict = {"__name__": "__main__"}
        self.stdout = _CappedWriter(self.max_output)
        # The channel carries one exchange at a time: tool calls from the code's threads take turns,
        # and none may start once the cell has finished (the parent then waits for the next run).
        self.channel = _thread.allocate_lock()
        self.cell_running = False

    # -- tool proxies -------------------------------------------------------------------
    def call_tool(self, name: str, args: tuple, kwargs: dict):
        if os.getpid() != self.pid:
            raise self.ToolError(f"tool {name!r} cannot be called from a forked process")
        with self.channel:
            if not self.cell_running:
                raise self.ToolError(f"tool {name!r} was called after the code cell finished (from a thread it left "
                                     "running); call tools while the code runs, e.g. join your threads first")
            write_frame(self.wfd, {"op": "call", "tool": name, "args": list(args), "kwargs": kwargs})
            reply = self.reader.read_frame()
        if reply.get("ok"):
            return reply.get("value")
        import builtins

        etype = reply.get("etype") or "Exception"
        cls = getattr(builtins, etype, None)
        message = str(reply.get("error", "tool failed"))
        if (isinstance(cls, type) and issubclass(cls, Exception) and cls is not Exception):
            try:
                exc = cls(message)
            except TypeError:  # built-ins with other signatures (e.g. UnicodeDecodeError)
                exc = None
            if exc is not None:
                raise exc
        raise self.ToolError(message)

    def make_proxy(self, name: str):
        call = self.call_tool
        short = name.rsplit(".", 1)[-1]

        def proxy(*args, **kwargs):
            return call(name, args, kwargs)

        proxy.__name__ = proxy.__qualname__ = short
        proxy.__doc__ = f"Sandbox proxy for the host tool {name!r}."
        return proxy

    def install_tools(self, names: list) -> None:
        import types

        self.ToolError = type("ToolError", (Exception,), {"__module__": "sandbox"})
        self.namespace["ToolError"] = self.ToolError
        modules: dict = {}
        for name in names:
            proxy = self.make_proxy(name)
            parts = name.split(".")
            if len(parts) == 1:
                self.namespace[name] = proxy
                continue
            # Dotted names become importable virtual modules: "a.b.f" -> module a, module a.b.
            for i in range(1, len(parts)):
                mod_name = ".".join(parts[:i])
                if mod_name not in modules:
                    mod = types.ModuleType(mod_name, f"Sandbox tool namespace {mod_name!r}.")
                    modules[mod_name] = mod
                    sys.modules[mod_name] = mod
                    if i > 1:
                        setattr(modules[".".join(parts[:i - 1])], parts[i - 1], mod)
            setattr(modules[".".join(parts[:-1])], parts[-1], proxy)
            self.namespace.setdefault(parts[0], modules[parts[0]])

    # -- running code -------------------------------------------------------------------
    def execute(self, code: str, trusted: bool = False) -> dict:
        import ast
        import linecache

        self.cell += 1
        filename = f"<cell {self.cell}>" if not trusted else "<preload>"
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        self.stdout = out = _CappedWriter(self.max_output)
        old_out, old_err = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = out
        value = None
        error = None
        kind = None
        try:
            tree = ast.parse(code, filename, "exec")
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Expression(tree.body.pop().value)
            exec(compile(tree, filename, "exec"), self.namespace)
            if last is not None:
                result = eval(compile(last, filename, "eval"), self.namespace)
                if result is not None:
                    value = repr(result)
        except BaseException as exc:  # agent faults of every kind are reported, never fatal
            kind = "syntax" if isinstance(exc, SyntaxError) else _classify(exc)
            try:
                error = _short_traceback(exc)
            except BaseException as inner:  # a hostile __str__ must not kill the worker
                error = f"{type(exc).__name__} (its message could not be shown: {type(inner).__name__})"
        finally:
            sys.stdout, sys.stderr = old_out, old_err
            if os.getpid() != self.pid:
                os._exit(0)  # a process forked by the agent's code must never speak on the channel
        value_truncated = False
        if value is not None and len(value) > self.max_value:
            value = value[: self.max_value] + f"... [value truncated: {len(value) - self.max_value} more characters]"
            value_truncated = True
        return {
            "op": "done",
            "stdout": out.text(),
            "out_total": out.total,
            "value": value,
            "value_truncated": value_truncated,
            "error": error,
            "error_kind": kind,
        }

    def reap_children(self) -> None:
        """Collect exited children of the agent's forks: zombies would hold pids of the cgroup."""
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return

    def serve(self) -> None:
        self.reader = BlockingReader(self.rfd, self.max_bytes)
        init = self.reader.read_frame()
        self.max_bytes = self.reader.max_bytes = int(init.get("max_bytes", self.max_bytes))
        self.max_output = int(init.get("max_output", self.max_output))
        self.max_value = int(init.get("max_value", self.max_value))
        self.install_tools(list(init.get("tools", [])))
        for mod in init.get("prewarm", []):
            __import__(mod)
        ready = {"op": "ready", "preload_error": None}
        if init.get("preload"):
            self.cell_running = True
            res = self.execute(init["preload"], trusted=True)
            self.cell_running = False
            ready["preload_error"] = res["error"]
        self.cell = 0
        # From here on C-level writes to fds 1/2 go nowhere; the parent stopped reading stderr.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.close(devnull)
        write_frame(self.wfd, ready)
        # Modules every run needs, imported while the parent has nothing for us yet (a spare
        # worker is fully warm by the time it is used).
        import ast  # noqa: F401
        import linecache  # noqa: F401
        import traceback  # noqa: F401
        while True:
            try:
                msg = self.reader.read_frame()
            except EOFError:
                return
            op = msg.get("op")
            if op == "run":
                self.reap_children()  # strays the parent killed after the previous run
                self.cell_running = True
                try:
                    result = self.execute(str(msg.get("code", "")))
                finally:
                    with self.channel:  # a thread's tool call in flight finishes first
                        self.cell_running = False
                self.reap_children()
                write_frame(self.wfd, result)
            elif op == "ping":
                write_frame(self.wfd, {"op": "pong"})
            else:
                write_frame(self.wfd, {"op": "done", "stdout": "", "out_total": 0, "value": None,
                                       "value_truncated": False, "error": f"unknown op {op!r}",
                                       "error_kind": "crash"})


def apply_limits(limits: dict) -> None:
    """Set this process's rlimits (soft = hard, so they cannot be raised again without privileges)."""
    import resource

    names = {"as": resource.RLIMIT_AS, "cpu": resource.RLIMIT_CPU, "fsize": resource.RLIMIT_FSIZE,
             "nproc": resource.RLIMIT_NPROC, "core": resource.RLIMIT_CORE}
    for key, value in limits.items():
        if value is not None:
            hard = value + 5 if key == "cpu" else value  # SIGXCPU first, SIGKILL 5 s later
            resource.setrlimit(names[key], (value, hard))


def main(argv: list) -> None:
    rfd, wfd = int(argv[1]), int(argv[2])
    apply_limits(json.loads(argv[3]))
    extra_paths = [p for p in argv[4:] if p]
    sys.path[:0] = [p for p in extra_paths if p not in sys.path]
    sys.argv = ["sandbox"]
    _Worker(rfd, wfd).serve()


if __name__ == "__main__":
    main(sys.argv)
