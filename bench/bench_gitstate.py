"""The shared state on a git remote: what taking the apply lock, appending a run record and
reading the history cost, against a bare repository on local disk (a network remote adds its
round trips: `git ls-remote` + `git push` for the lock, a fetch for history).

    python bench/bench_gitstate.py [-n 5] [--records 500]

Prints medians (min) of: lock acquire + release (ls-remote, commit, compare-and-swap push,
delete), one record appended (fetch, commit, push), and `read_records` of N records (what
`fabricctl history` and `show tenant` read).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fabricctl.deploy import gitstate, lock

ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **ENV}, check=True, capture_output=True)


def shown(sample: tuple[float, float]) -> str:
    return f"{sample[0]:.3f} s ({sample[1]:.3f})"


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), min(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--runs", type=int, default=5)
    parser.add_argument("--records", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        git(base, "init", "-q", "--bare", "remote.git")
        git(base, "init", "-q", "clone")
        clone = base / "clone"
        git(clone, "commit", "-q", "--allow-empty", "-m", "x")
        git(clone, "remote", "add", "origin", str(base / "remote.git"))
        os.environ[gitstate.ENV] = "origin"
        remote = gitstate.shared_remote(clone)
        assert remote is not None

        def lock_cycle() -> None:
            with lock.fabric_lock(clone, "bench", remote=remote):
                pass

        record = {
            "run_id": "",
            "state": "finished",
            "switches": {f"leaf{i}": {"status": "changed"} for i in range(48)},
        }
        count = [0]

        def append() -> None:
            count[0] += 1
            data: dict[str, Any] = {**record, "run_id": f"20260101T000000.{count[0]:06d}Z-1"}

            def link(chain: dict[str, Any]) -> None:  # a finished record joins the chain, as apply's does
                data["chain"] = chain

            gitstate.push_record(remote, lambda: data, link)

        print(f"lock acquire + release   {shown(timed(lock_cycle, args.runs))}")
        print(f"append one run record    {shown(timed(append, args.runs))}")
        while count[0] < args.records:
            append()
        got = timed(lambda: gitstate.read_records(remote), args.runs)
        print(f"read {args.records} run records    {shown(got)}")


if __name__ == "__main__":
    main()
