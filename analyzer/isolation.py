"""analyze() in a separate process under a memory cap and a time cap.

One pathological page (a million attributes, a parser trap) must not take the calling
worker down or hold it for minutes. `Isolated` keeps one analysing process per calling
process, started on first use and kept for the next pages (a fresh interpreter that imports
the analyzer only, so starting it costs a fraction of a second once, not per page):

1. The child sets RLIMIT_AS to the memory cap, says it is ready, then analyses page after
   page sent over a pipe, answering with the PageAnalysis or the AnalyzerError.
2. The caller waits at most the time cap for each answer. A page that runs out of memory
   (MemoryError in the child, or the child dying) or of time (the child is killed) is
   refused with an AnalysisLimitError, an AnalyzerError like every other refusal; the child
   is replaced before the next page, which is analysed as usual.

`Pool` holds several such children for callers that analyse pages side by side (a crawl
run analyses the pages it fetched while it stores earlier ones).

A caller may have the child read the page further beside its analysis (`Reader`: a function
defined at a module's top level, which the child imports, and its last arguments): the
reading runs under the same caps, and its result comes back with the analysis, or None
if it raised (the child prints why on its standard error, which is the caller's).

Frames are a length and a pickle; both ends are this module, run by the same interpreter.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from analyzer.errors import AnalyzerError
from analyzer.model import PageAnalysis

if TYPE_CHECKING:
    from analyzer.kind import Averages

MIB = 1024 * 1024
_HEADER = struct.Struct("!Q")
_READY = b"ready"
_START_SECONDS = 30.0  # longest wait for a new child to import the analyzer
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])

# function(html, url, analysis, *args), and args: what a caller has the child read besides.
Reader = tuple[Callable[..., Any], tuple[Any, ...]]


class AnalysisLimitError(AnalyzerError):
    """The page's analysis went past a cap of the analysing process, or crashed it."""


class AnalysisMemoryError(AnalysisLimitError):
    """Analysing the page needed more memory than the cap allows."""


class AnalysisTimeoutError(AnalysisLimitError):
    """Analysing the page took longer than the time cap."""


class AnalysisCrashError(AnalysisLimitError):
    """The analysing process died on the page (a signal or an exit, not an answer)."""


class Isolated:
    """One analysing child process with caps; safe to share between threads (one at a time).

    memory_bytes: cap on the child's address space (RLIMIT_AS), 0 for none. seconds: wall
    clock cap per page, 0 for none.
    """

    def __init__(self, memory_bytes: int, seconds: float) -> None:
        self.memory_bytes = memory_bytes
        self.seconds = seconds
        self._child: subprocess.Popen[bytes] | None = None
        self._owner = 0  # the pid that started the child: a forked copy never uses it
        self._lock = threading.Lock()

    def analyze(
        self, html: str | bytes, url: str | None = None, *, declared_encoding: str | None = None
    ) -> PageAnalysis:
        """Return analyze(html, url) as computed in the child; raise AnalyzerError as it does."""
        return self.analyze_and_read(html, url, declared_encoding=declared_encoding)[0]

    def analyze_and_read(
        self,
        html: str | bytes,
        url: str | None = None,
        *,
        reader: Reader | None = None,
        declared_encoding: str | None = None,
        averages: Averages | None = None,
    ) -> tuple[PageAnalysis, Any]:
        """Return analyze(html, url) and what `reader` read of the page, both computed in the
        child (None without a reader, or when it raised); raise AnalyzerError as analyze does."""
        with self._lock:
            child = self._ready_child()
            assert child.stdin is not None and child.stdout is not None
            try:
                _send(child.stdin, (html, url, declared_encoding, reader, averages))
                answer = _receive(child.stdout, self.seconds or None)
            except TimeoutError:
                self.close()
                raise AnalysisTimeoutError(
                    f"analysis took longer than the {self.seconds:g} s time cap"
                ) from None
            except (EOFError, OSError):
                raise self._died() from None
            except BaseException:
                self.close()  # interrupted mid-frame (a task's time limit): never reuse the pipe
                raise
        kind, *rest = answer
        if kind == "ok":
            analysis: PageAnalysis = rest[0]
            return analysis, rest[1]
        if kind == "memory":
            self.close()  # a MemoryError may have left the child half-broken
            raise AnalysisMemoryError(
                f"analysis needed more than the {self.memory_bytes // MIB} MiB memory cap"
            )
        if kind == "refused":
            raise rest[0]
        raise RuntimeError(f"the analysing process failed:\n{rest[0]}")

    def close(self) -> None:
        """Stop the child (a new one starts on the next page)."""
        child, self._child = self._child, None
        if child is None or self._owner != os.getpid():
            return
        for stream in (child.stdin, child.stdout):
            if stream is not None:
                stream.close()
        child.kill()
        child.wait()

    def _ready_child(self) -> subprocess.Popen[bytes]:
        if self._child is not None and self._owner == os.getpid():
            if self._child.poll() is None:
                return self._child
            self.close()
        self._child, self._owner = self._start(), os.getpid()
        return self._child

    def _start(self) -> subprocess.Popen[bytes]:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([_PACKAGE_ROOT, *sys.path])}
        child = subprocess.Popen(  # noqa: S603 - this interpreter, this module
            [sys.executable, "-m", "analyzer.isolation", str(self.memory_bytes)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            close_fds=True,
        )
        assert child.stdout is not None
        try:
            if _receive(child.stdout, _START_SECONDS) != _READY:
                raise EOFError
        except (TimeoutError, EOFError, OSError):
            child.kill()
            child.wait()
            raise RuntimeError(
                "the analysing process did not start (is the memory cap below what the "
                f"analyzer needs to import? {self.memory_bytes // MIB} MiB)"
            ) from None
        return child

    def _died(self) -> AnalysisLimitError:
        child = self._child
        assert child is not None
        code = child.wait()
        self.close()
        if code in (-signal.SIGKILL, -signal.SIGSEGV, -signal.SIGABRT, -signal.SIGBUS):
            # The kernel or the C allocator gave up on the page: most likely memory.
            name = signal.Signals(-code).name
            return AnalysisCrashError(f"the page killed its analysing process ({name})")
        return AnalysisCrashError(f"the analysing process exited ({code}) on the page")


class Pool:
    """Up to `size` analysing children with the same caps, for pages analysed side by side.

    A page takes an idle child, or starts one while fewer than `size` exist, or waits for
    one: callers that analyse one page at a time never start a second child.
    """

    def __init__(self, memory_bytes: int, seconds: float, size: int = 1) -> None:
        self.memory_bytes = memory_bytes
        self.seconds = seconds
        self.size = max(1, size)
        self._idle: list[Isolated] = []
        self._started = 0
        self._free = threading.Condition()

    def analyze(
        self, html: str | bytes, url: str | None = None, *, declared_encoding: str | None = None
    ) -> PageAnalysis:
        """Return analyze(html, url) as computed in one of the children (see Isolated)."""
        return self.analyze_and_read(html, url, declared_encoding=declared_encoding)[0]

    def analyze_and_read(
        self,
        html: str | bytes,
        url: str | None = None,
        *,
        reader: Reader | None = None,
        declared_encoding: str | None = None,
        averages: Averages | None = None,
    ) -> tuple[PageAnalysis, Any]:
        """Return the analysis and the reading of a page, from one of the children (see
        Isolated.analyze_and_read)."""
        isolated = self._take()
        try:
            return isolated.analyze_and_read(
                html, url, reader=reader, declared_encoding=declared_encoding, averages=averages
            )
        finally:
            with self._free:
                self._idle.append(isolated)
                self._free.notify()

    def _take(self) -> Isolated:
        with self._free:
            while not self._idle and self._started >= self.size:
                self._free.wait()
            if self._idle:
                return self._idle.pop()
            self._started += 1
        return Isolated(self.memory_bytes, self.seconds)

    def close(self) -> None:
        """Stop the idle children (a busy one is stopped by its next refusal or at exit)."""
        with self._free:
            idle, self._idle, self._started = self._idle, [], self._started - len(self._idle)
        for isolated in idle:
            isolated.close()


_shared: dict[tuple[int, float], Pool] = {}
_shared_lock = threading.Lock()


def analyze_isolated(
    html: str | bytes,
    url: str | None = None,
    *,
    declared_encoding: str | None = None,
    memory_bytes: int,
    seconds: float,
    processes: int = 1,
) -> PageAnalysis:
    """Analyse one page in one of this process's analysing children with these caps (kept for
    reuse); up to `processes` children analyse the pages of concurrent callers side by side.

    With neither cap (both 0) the page is analysed in this process.
    """
    return analyze_and_read_isolated(
        html,
        url,
        declared_encoding=declared_encoding,
        memory_bytes=memory_bytes,
        seconds=seconds,
        processes=processes,
    )[0]


def analyze_and_read_isolated(
    html: str | bytes,
    url: str | None = None,
    *,
    reader: Reader | None = None,
    declared_encoding: str | None = None,
    averages: Averages | None = None,
    memory_bytes: int,
    seconds: float,
    processes: int = 1,
) -> tuple[PageAnalysis, Any]:
    """Analyse one page as `analyze_isolated` does, and read it with `reader` in the same
    process; return the analysis and the reading (None without a reader, or if it raised).
    `averages`: the page averages the page's kind is weighed against (plain values, sent to
    the analysing process with the page)."""
    if not memory_bytes and not seconds:
        from analyzer.pipeline import analyze

        analysis = analyze(html, url, declared_encoding=declared_encoding, averages=averages)
        return analysis, _read_page(reader, html, url, analysis)
    with _shared_lock:
        pool = _shared.get((memory_bytes, seconds))
        if pool is None:
            pool = _shared[(memory_bytes, seconds)] = Pool(memory_bytes, seconds, processes)
        pool.size = max(pool.size, processes)
    return pool.analyze_and_read(
        html, url, reader=reader, declared_encoding=declared_encoding, averages=averages
    )


def _read_page(reader: Reader | None, html: str | bytes, url: str | None, analysis: Any) -> Any:
    """Return what `reader` reads of an analysed page; None without one, or if it raised
    (printed on standard error: a fault of the reader must not cost the page its analysis)."""
    if reader is None:
        return None
    function, args = reader
    try:
        return function(html, url, analysis, *args)
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - reported, and the page keeps its analysis
        import traceback

        traceback.print_exc(file=sys.stderr)
        return None


def _send(stream: IO[bytes], value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _receive(stream: IO[bytes], seconds: float | None) -> Any:
    """Read one frame; raise TimeoutError after `seconds` (None: wait), EOFError at the end."""
    deadline = None if seconds is None else time.monotonic() + seconds
    header = _read(stream, _HEADER.size, deadline)
    (size,) = _HEADER.unpack(header)
    return pickle.loads(_read(stream, size, deadline))  # noqa: S301 - our own child


def _read(stream: IO[bytes], size: int, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    fd = stream.fileno()
    while size:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def serve(memory_bytes: int) -> None:
    """Analyse pages read from stdin, answering on stdout, until stdin closes (the child)."""
    import resource
    import traceback

    from analyzer.pipeline import analyze

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but frames on the pipe
    if memory_bytes:
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, hard))
    _send(stdout, _READY)
    while True:
        try:
            html, url, declared_encoding, reader, averages = _receive(stdin, None)
        except EOFError:
            return
        try:
            analysis = analyze(html, url, declared_encoding=declared_encoding, averages=averages)
            answer: tuple[Any, ...] = ("ok", analysis, _read_page(reader, html, url, analysis))
            data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        except MemoryError:
            _send(stdout, ("memory",))
            return
        except AnalyzerError as refusal:
            _send(stdout, ("refused", refusal))
            continue
        except Exception:  # noqa: BLE001 - a bug: the caller raises it as in-process
            _send(stdout, ("failed", traceback.format_exc()))
            continue
        stdout.write(_HEADER.pack(len(data)) + data)
        stdout.flush()


if __name__ == "__main__":
    serve(int(sys.argv[1]))
