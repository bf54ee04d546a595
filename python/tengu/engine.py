"""An XBoard engine from Python: ``tengu.Engine`` runs ``tengu xboard`` (or any engine that
speaks XBoard/CECP v2 with ``variant daidai`` / ``variant maka``) as a child process, as
``cshogi.usi`` runs a USI engine.

>>> with tengu.Engine(movetime_ms=200) as engine:        # doctest: +SKIP
...     board = tengu.Board()
...     board.push(engine.go(board))

Each ``go(board)`` sets the engine's board to ``board`` (``new``, ``variant``, ``force``, the
start position by ``setboard`` where it is not the initial one, every move by ``usermove``),
checks with ``ping`` that the engine took them, then asks for a move and answers it as
§12.3 text (the engine's XBoard text read back by ``Board.xboard_move``). Errors are
``EngineError``, naming the engine's own line (an ``Illegal move`` or ``Error`` answer), an
engine that exited (with the end of its standard error) or one that did not answer in time.
"""

from __future__ import annotations

import collections
import os
import queue
import shutil
import subprocess
import threading
import time
from typing import Deque, List, Optional, Sequence, Union

from ._tengu import TenguError


class EngineError(TenguError):
    """An engine that refused a command, exited or did not answer in time."""


def _default_program() -> str:
    """``$TENGU_BIN``, else ``tengu`` on the ``PATH``."""
    exe = os.environ.get("TENGU_BIN") or shutil.which("tengu")
    if not exe:
        raise EngineError("no tengu program: put tengu on the PATH, set TENGU_BIN, or give "
                          "Engine(command=[...]) (cargo build --release puts it in "
                          "target/release/tengu)")
    return exe


class Engine:
    """An XBoard engine process.

    ``Engine(command=None, *, checkpoint=None, args=(), visits=None, movetime_ms=None,
    timeout=60.0)``: ``command`` is the engine's command line (a list), or a program run
    as ``PROGRAM xboard``; by default ``tengu xboard`` (``$TENGU_BIN`` or ``tengu`` on the
    ``PATH``) with ``--checkpoint`` when given and ``args`` after. ``visits`` sets the
    engine's ``Visits`` option, ``movetime_ms`` the time per move (``st``) of every ``go``
    that gives none; ``timeout`` is the seconds beyond the move time an answer may take.
    """

    def __init__(self, command: Union[None, str, Sequence[str]] = None, *,
                 checkpoint: Optional[str] = None, args: Sequence[str] = (),
                 visits: Optional[int] = None, movetime_ms: Optional[int] = None,
                 timeout: float = 60.0) -> None:
        if command is None or isinstance(command, str):
            cmd: List[str] = [command or _default_program(), "xboard"]
            if checkpoint:
                cmd += ["--checkpoint", str(checkpoint)]
            cmd += list(args)
        else:
            cmd = list(command) + list(args)
        self.command = cmd
        self.movetime_ms = movetime_ms
        self.timeout = timeout
        #: The engine's last thinking line (``depth score time nodes pv``), if it sent one.
        self.info: Optional[str] = None
        #: The engine's ``feature myname``.
        self.name: Optional[str] = None
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self._stderr: Deque[str] = collections.deque(maxlen=20)
        self._ping = 0
        try:
            self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True, bufsize=1)
        except OSError as e:
            raise EngineError(f"cannot start {cmd[0]!r}: {e}") from None
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        self._send("xboard")
        self._send("protover 2")
        deadline = time.monotonic() + timeout
        while True:
            line = self._next(deadline, "feature done=1")
            if line.startswith("feature"):
                if 'myname="' in line:
                    self.name = line.split('myname="', 1)[1].split('"', 1)[0]
                if "done=1" in line:
                    break
        self._send("post")
        if visits is not None:
            self._send(f"option Visits={int(visits)}")

    # -- the process ---------------------------------------------------------------------

    def _read_stdout(self) -> None:
        for line in self._proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def _read_stderr(self) -> None:
        for line in self._proc.stderr:
            self._stderr.append(line.rstrip("\n"))

    def _send(self, line: str) -> None:
        try:
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._exited(f"sending {line!r}") from None

    def _exited(self, doing: str) -> EngineError:
        code = self._proc.poll()
        tail = "\n".join(self._stderr)
        return EngineError(f"{self.command[0]} exited (status {code}) while {doing}"
                           + (f"; its last lines:\n{tail}" if tail else ""))

    def _next(self, deadline: float, waiting_for: str) -> str:
        """The engine's next line; ``EngineError`` for an error line, an exit or the
        deadline."""
        left = deadline - time.monotonic()
        try:
            line = self._lines.get(timeout=max(left, 0.0))
        except queue.Empty:
            raise EngineError(f"{self.command[0]} sent no {waiting_for} in time") from None
        if line is None:
            self._lines.put(None)
            raise self._exited(f"waiting for {waiting_for}")
        if line.startswith("Illegal move") or line.startswith("Error"):
            raise EngineError(f"{self.command[0]}: {line}")
        return line

    def _sync(self) -> None:
        """Waits until the engine has taken every command sent (``ping`` / ``pong``)."""
        self._ping += 1
        self._send(f"ping {self._ping}")
        deadline = time.monotonic() + self.timeout
        while self._next(deadline, f"pong {self._ping}").strip() != f"pong {self._ping}":
            pass

    # -- playing -------------------------------------------------------------------------

    def set_board(self, board) -> None:
        """Sets the engine's game to ``board``'s: its start and the moves played since."""
        from . import Board

        self._send("new")
        self._send("variant maka" if board.size == 19 else "variant daidai")
        self._send("force")
        start = board.start_text()
        if start != Board(game=board.game).position_text():
            self._send(f"setboard {start}")
        replay = Board(start)
        for move in board.move_stack:
            self._send(f"usermove {replay.xboard_text(move)}")
            replay.push(move)
        self._sync()

    def go(self, board, movetime_ms: Optional[int] = None) -> Optional[str]:
        """The engine's move in ``board`` as §12.3 text (``board`` is not changed), or
        ``None`` when the engine resigns or declares the game over."""
        self.set_board(board)
        ms = movetime_ms if movetime_ms is not None else self.movetime_ms
        if ms is not None:
            self._send(f"st {max(int(ms), 1) / 1000}")
        self._send("go")
        deadline = time.monotonic() + (ms or 0) / 1000 + self.timeout
        legs: List[str] = []
        while True:
            line = self._next(deadline, "a move").strip()
            if line.startswith("move "):
                # A multi-leg move comes one leg a line, every leg but the last ending in ','.
                leg = line[5:].strip()
                legs.append(leg)
                if not leg.endswith(","):
                    break
            elif line == "resign" or line.split(" ", 1)[0] in ("1-0", "0-1", "1/2-1/2"):
                self._send("force")
                return None
            elif line[:1].isdigit():
                self.info = line
        self._send("force")
        return board.xboard_move("".join(legs))

    def quit(self) -> None:
        """Ends the engine (``quit``, then a kill after a few seconds)."""
        if self._proc.poll() is None:
            try:
                self._send("quit")
            except EngineError:
                pass
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.quit()

    def __del__(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.poll() is None:
            proc.kill()
