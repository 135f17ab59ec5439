"""The stage log: `-v` shows it on stderr, `--log-file FILE` (or FABRICCTL_LOG_FILE) keeps all of it.

fabricctl's own modules log under the `fabricctl` logger (one line per switch and stage: connect,
read, push, outcome, the exception chain of a failure). A log file also receives the debug
records of the libraries that talk to switches (netmiko, paramiko, Nornir, NAPALM, pyeapi), so a
failed change window can be replayed line by line. Every handler fabricctl installs carries a
`RedactFilter`: a registered secret never reaches a terminal or a file, whichever library logged it.

Lowest layer (beside secrets.py): every stage may log, nothing here imports a stage.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TextIO

from fabricctl.secrets import redact

LOGGER = "fabricctl"
#: Libraries whose records go to the log file (and, with -vv, to stderr).
LIBRARIES = ("netmiko", "paramiko", "nornir", "napalm", "pyeapi", "asyncssh")
FILE_FORMAT = "%(asctime)s.%(msecs)03d %(levelname)-7s %(threadName)s %(name)s: %(message)s"
STDERR_FORMAT = "%(levelname).1s %(name)s: %(message)s"
ENV_LOG_FILE = "FABRICCTL_LOG_FILE"

_installed: list[tuple[logging.Logger, logging.Handler]] = []
# Without a handler of its own, a warning of ours would reach Python's last-resort handler
# (raw text on stderr) whenever -v and --log-file are both off.
logging.getLogger(LOGGER).addHandler(logging.NullHandler())


class RedactFilter(logging.Filter):
    """Formats the record once and replaces every registered secret in it (message and traceback)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a library's bad format string must not take the run down
            message = f"{record.msg!r} {record.args!r}"
        record.msg = redact(message)
        record.args = ()
        if record.exc_info:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


class RedactingFormatter(logging.Formatter):
    """The whole formatted line redacted too (a thread or logger name can spell a secret)."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class _LogFile(logging.StreamHandler):  # type: ignore[type-arg]
    """--log-file: the stream outputs.open_append opened, closed with the handler."""

    def close(self) -> None:
        try:
            self.flush()
            self.stream.close()
        finally:
            super().close()


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]  # StreamHandler is generic only in typeshed; at run time it takes no parameter
    """Writes to whatever sys.stderr is at emit time (a live display may have redirected it)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:
        pass


def get_logger(name: str) -> logging.Logger:
    """A logger under `fabricctl` (pass `__name__`)."""
    return logging.getLogger(name if name.startswith(LOGGER) else f"{LOGGER}.{name}")


def setup_logging(verbose: int = 0, log_file: Path | str | None = None) -> Path | None:
    """Install the handlers for one command run (again: the previous ones are replaced).

    verbose 1: fabricctl's stage log (INFO) on stderr; 2: its debug records and the libraries'
    (DEBUG). `log_file` (default: FABRICCTL_LOG_FILE when set) gets everything at DEBUG.
    Returns the log file's path, if any.
    """
    reset_logging()
    if log_file is None and os.environ.get(ENV_LOG_FILE):
        log_file = os.environ[ENV_LOG_FILE]
    ours = logging.getLogger(LOGGER)
    levels: list[int] = []
    if verbose > 0:
        handler: logging.Handler = _StderrHandler()
        handler.setLevel(logging.INFO if verbose == 1 else logging.DEBUG)
        handler.setFormatter(RedactingFormatter(STDERR_FORMAT))
        handler.addFilter(RedactFilter())
        _install(ours, handler)
        if verbose > 1:
            for name in LIBRARIES:
                _install(logging.getLogger(name), handler)
        levels.append(handler.level)
    path = None
    if log_file:
        import io

        from fabricctl.outputs import open_append

        path = Path(log_file)
        stream = io.TextIOWrapper(open_append(path), encoding="utf-8", line_buffering=True)
        fh = _LogFile(stream)  # never through a symlink, a device or a FIFO
        fh.setLevel(logging.DEBUG)
        fh.setFormatter(RedactingFormatter(FILE_FORMAT, datefmt="%Y-%m-%dT%H:%M:%S"))
        fh.addFilter(RedactFilter())
        _install(ours, fh)
        for name in LIBRARIES:
            _install(logging.getLogger(name), fh)
        levels.append(logging.DEBUG)
    if levels:
        level = min(levels)
        ours.setLevel(level)
        if log_file or verbose > 1:
            for name in LIBRARIES:
                logging.getLogger(name).setLevel(logging.DEBUG)
    return path


def _install(logger: logging.Logger, handler: logging.Handler) -> None:
    logger.addHandler(handler)
    _installed.append((logger, handler))


def reset_logging() -> None:
    """Remove what `setup_logging` installed (tests run many commands in one process)."""
    closed: set[int] = set()
    for logger, handler in _installed:
        logger.removeHandler(handler)
        if id(handler) not in closed:
            closed.add(id(handler))
            handler.close()
    _installed.clear()
    logging.getLogger(LOGGER).setLevel(logging.NOTSET)
    for name in LIBRARIES:
        logging.getLogger(name).setLevel(logging.NOTSET)
