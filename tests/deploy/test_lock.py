"""The fabric apply lock: atomic create, clear refusal, stale takeover, force-unlock."""

from __future__ import annotations

import datetime as dt
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fabricctl.cli import main
from fabricctl.deploy import lock
from fabricctl.deploy.lock import LockHeld, LockInfo, acquire, fabric_lock, lock_path, read_lock, release

PLAN = "ab" * 32


def _write(root: Path, **fields: object) -> None:
    data = {"format": "fabricctl-lock", "version": 1, "user": "alice", "host": socket.gethostname()}
    data |= {"pid": os.getpid(), "created": time.time(), "plan_hash": "cd" * 32, **fields}
    path = lock_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_acquire_writes_holder_details_and_release_removes(tmp_path: Path) -> None:
    before = time.time()
    info = acquire(tmp_path, PLAN)
    after = time.time()
    data = json.loads(lock_path(tmp_path).read_text(encoding="utf-8"))
    assert data == {
        "format": "fabricctl-lock",
        "version": 1,
        "user": info.user,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "created": info.created,
        "plan_hash": PLAN,
    }
    assert before <= info.created <= after
    release(tmp_path, info)
    assert not lock_path(tmp_path).exists()


def test_second_holder_refused_with_who_when_pid(tmp_path: Path) -> None:
    created = float(int(time.time()) - 90)
    _write(tmp_path, user="alice", host="build-7", pid=4242, created=created)
    with pytest.raises(LockHeld) as err:
        acquire(tmp_path, PLAN)
    msg = str(err.value)
    since = dt.datetime.fromtimestamp(created, dt.UTC).isoformat()
    for part in ("alice@build-7", "pid 4242", f"since {since}", "plan cdcdcdcdcdcd", "force-unlock"):
        assert part in msg
    assert read_lock(tmp_path).user == "alice"  # type: ignore[union-attr]  # untouched


def test_own_live_lock_is_not_stale(tmp_path: Path) -> None:
    held = acquire(tmp_path, PLAN)
    with pytest.raises(LockHeld, match=f"pid {os.getpid()}"):
        acquire(tmp_path, PLAN)
    assert read_lock(tmp_path) == held


def test_dead_pid_on_this_host_is_stale_and_taken_over(tmp_path: Path) -> None:
    _write(tmp_path, pid=_dead_pid())
    info = acquire(tmp_path, PLAN)
    assert read_lock(tmp_path) == info and info.pid == os.getpid()


def test_live_pid_elsewhere_is_held_until_the_ttl(tmp_path: Path) -> None:
    """Another host's pid cannot be checked: only age makes its lock stale."""
    _write(tmp_path, host="other-host", pid=1, created=time.time() - 60)
    with pytest.raises(LockHeld, match="other-host"):
        acquire(tmp_path, PLAN)
    with pytest.raises(LockHeld):
        acquire(tmp_path, PLAN, ttl=120)
    info = acquire(tmp_path, PLAN, ttl=30)  # the same lock, now older than the TTL
    assert read_lock(tmp_path) == info


def test_a_lock_dated_in_the_future_is_stale(tmp_path: Path) -> None:
    """No live apply wrote a lock dated past the clock skew hosts may have (2036, say): it is
    taken over, aloud; one a few seconds ahead (another host's clock) still holds."""
    _write(tmp_path, host="other-host", created=time.time() + 60)
    with pytest.raises(LockHeld):
        acquire(tmp_path, PLAN)
    far = time.time() + 10 * 365 * 86400
    _write(tmp_path, host="other-host", pid=1, created=far)
    heard: list[str] = []
    assert acquire(tmp_path, PLAN, on_takeover=lambda held: heard.append(held.why_stale())).pid == os.getpid()
    assert heard and heard[0].startswith("it is dated ") and heard[0].endswith(" s in the future")
    info = LockInfo("a", "h", 1, 1000.0, PLAN)
    assert info.why_stale(now=1000.0 + lock.TTL_SECONDS + 1) == "its lease of 6 h ran out"
    assert info.why_stale(now=1000.0 - lock.MAX_SKEW - 1) == "it is dated 301 s in the future"
    assert info.why_stale(now=1000.0 - lock.MAX_SKEW + 1) == ""


def test_default_ttl_is_six_hours(tmp_path: Path) -> None:
    _write(tmp_path, host="other-host", created=time.time() - lock.TTL_SECONDS + 60)
    with pytest.raises(LockHeld):
        acquire(tmp_path, PLAN)
    _write(tmp_path, host="other-host", created=time.time() - lock.TTL_SECONDS - 60)
    assert acquire(tmp_path, PLAN).pid == os.getpid()
    assert lock.TTL_SECONDS == 6 * 3600


LIVE = {"user": "alice", "host": "build-7", "pid": 4242, "created": 1.0e9, "plan_hash": "cd" * 32}


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{half", "not JSON"),
        ("", "not JSON"),
        ("\xff\xfe", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        (json.dumps(LIVE), "not a fabricctl lock of a known format"),  # the unversioned format
        ("user: alice\npid: 4242\n", "not JSON"),  # YAML, as a hand-written lock might be
        (json.dumps({"format": "fabricctl-lock", "version": 2, **LIVE}), "lock format version 2"),
        (json.dumps({"format": "fabricctl-lock", "version": "1", **LIVE}), "lock format version '1'"),
        (json.dumps({"format": "fabricctl-lock", "version": 1, **LIVE, "ttl": 60}), "the fields are not"),
        (json.dumps({"format": "fabricctl-lock", "version": 1, **LIVE, "pid": "4242"}), "the fields are not"),
        (json.dumps({"format": "fabricctl-lock", "version": 1, **LIVE, "pid": True}), "the fields are not"),
        (json.dumps({"format": "fabricctl-lock", "version": 1, "user": "alice"}), "the fields are not"),
        (json.dumps({"format": "fabricctl-lock", "version": 1, **LIVE, "created": 1e300}), "out of range"),
        (
            '{"format": "fabricctl-lock", "version": 1, "user": "a", "host": "h", "pid": 1, "created": NaN, "plan_hash": ""}',
            "out of range",
        ),
        (json.dumps({"format": "fabricctl-lock", "version": 1, **LIVE, "pid": -1}), "out of range"),
    ],
)
def test_a_lock_that_does_not_say_who_holds_it_refuses(tmp_path: Path, text: str, why: str) -> None:
    """Fail closed: an unreadable or unknown lock may belong to a live apply, so it is never taken
    over; the refusal names the file and force-unlock."""
    path = lock_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    before = path.read_bytes()
    with pytest.raises(LockHeld) as err:
        acquire(tmp_path, PLAN)
    message = str(err.value)
    assert why in message and str(path) in message and "fabricctl force-unlock" in message, message
    assert "\n" not in message
    assert path.read_bytes() == before, "left exactly as it was"
    release(tmp_path, LockInfo("me", "here", os.getpid(), 1.0, PLAN))  # not ours: kept
    assert path.read_bytes() == before


def test_a_lock_that_cannot_be_opened_refuses(tmp_path: Path) -> None:
    path = lock_path(tmp_path)
    path.mkdir(parents=True)  # a folder where the file should be
    with pytest.raises(LockHeld, match="cannot be read"):
        acquire(tmp_path, PLAN)


def test_force_unlock_removes_a_lock_nobody_can_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "inventory").mkdir()  # a fabric repository: --root holds inventory/
    path = lock_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text("garbage", encoding="utf-8")
    assert main(["force-unlock", "--yes", "--root", str(tmp_path)]) in (0, None)
    out = capsys.readouterr().out
    assert "cannot be read" in out and "lock removed" in out and not path.exists()
    assert acquire(tmp_path, PLAN).plan_hash == PLAN


def test_release_keeps_someone_elses_lock(tmp_path: Path) -> None:
    mine = acquire(tmp_path, PLAN)
    lock_path(tmp_path).unlink()
    _write(tmp_path, user="bob", pid=os.getpid(), created=mine.created + 1)
    release(tmp_path, mine)
    assert read_lock(tmp_path).user == "bob"  # type: ignore[union-attr]


def test_context_manager_releases_on_error(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), fabric_lock(tmp_path, PLAN):
        assert lock_path(tmp_path).exists()
        raise RuntimeError("push blew up")
    assert not lock_path(tmp_path).exists()


def _contend(
    root: str,
    start: multiprocessing.synchronize.Barrier,
    tried: multiprocessing.synchronize.Barrier,
    out: multiprocessing.Queue,  # type: ignore[type-arg]
) -> None:
    start.wait()
    try:
        info = acquire(Path(root), PLAN)
        out.put(("won", info.pid))
    except LockHeld:
        out.put(("refused", os.getpid()))
    tried.wait()  # the winner holds the lock until every process has tried, however slow


def test_exactly_one_of_racing_processes_wins(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    n = 6
    start, tried = ctx.Barrier(n), ctx.Barrier(n)
    out = ctx.Queue()
    procs = [ctx.Process(target=_contend, args=(str(tmp_path), start, tried, out)) for _ in range(n)]
    for p in procs:
        p.start()
    results = [out.get(timeout=120) for _ in range(n)]
    for p in procs:
        p.join(120)
    assert sorted(r[0] for r in results).count("won") == 1, results


def test_force_unlock_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "inventory").mkdir()
    assert main(["force-unlock", "--yes", "--root", str(tmp_path)]) in (0, None)
    assert "no lock held" in capsys.readouterr().out
    _write(tmp_path, user="alice", host="build-7", pid=4242)
    assert main(["force-unlock", "--yes", "--root", str(tmp_path)]) in (0, None)
    out = capsys.readouterr().out
    assert "alice@build-7 pid 4242" in out and "lock removed" in out
    assert not lock_path(tmp_path).exists()


def test_apply_takes_the_lock_even_with_nothing_to_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A held lock refuses apply before it plans; a dead holder's lock is taken over, and said so."""
    from tests.conftest import EOS_SMALL, copy_fabric

    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    _write(root, user="alice", host=socket.gethostname(), pid=os.getpid())  # alive: this very process
    code = main(["apply", "--lab", "--auto-approve", "--root", str(root)])
    err = capsys.readouterr().err
    assert code == 1 and "another apply holds the fabric lock: alice@" in err
    _write(root, user="bob", host=socket.gethostname(), pid=_dead_pid())
    code = main(["apply", "--limit", "no-such-switch", "--root", str(root)])  # fails after the lock
    err = capsys.readouterr().err
    assert "warning: took over a stale lock (bob@" in err
    assert not lock_path(root).exists(), "released again"


def test_the_holder_is_named_escaped(tmp_path: Path) -> None:
    """The lock is a file in the repository: what it says reaches a terminal escaped."""
    _write(tmp_path, user="\x1b]0;pwned\x07", host="build\u20287", pid=os.getpid())
    with pytest.raises(LockHeld) as err:
        acquire(tmp_path, PLAN)
    assert "\\x1b]0;pwned\\x07@build\\u20287" in str(err.value)
    assert not any(c in str(err.value) for c in "\x1b\x07\u2028")
