"""Many small cases in one child interpreter (test helper, not a test module).

Cases that may crash the interpreter (a corrupt CSR matrix reaching the engine) or allocate without bound
(a memory guard that fails) run in a child process, so a crash fails the test instead of killing pytest.
One child per group of cases, not one per case: the interpreter start and the imports (about 1.5 s of CPU
each; 36 cases in the suite) are paid once. A case that crashes the child fails itself and every case after
it, each with the child's stderr; the cases before it keep their results.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time


def _script(prelude: str, body: str, cases: dict[str, str]) -> str:
    """The child's program: ``prelude`` once, then per case a ``CASE <name>`` line and ``body`` with its line
    ``CALL`` replaced by the case's code."""
    parts = [textwrap.dedent(prelude)]
    for name, call in cases.items():
        parts += [f"print('CASE', {name!r}, flush=True)", textwrap.dedent(body).replace("CALL", call)]
    return "\n".join(parts)


def run_cases(prelude: str, body: str, cases: dict[str, str], *, timeout: float = 600) -> dict[str, str]:
    """{case: its last ``RESULT ...`` line, or ``"DIED ..."``} of ``body`` run once per case in one child.

    ``prelude`` runs once; ``body`` is a template whose line ``CALL`` (at any indentation) is replaced by the
    case's code (its continuation lines already indented to match).
    """
    try:
        # the program on stdin ("-"), not in argv: a few hundred cases pass the kernel's limit of one argument
        p = subprocess.run([sys.executable, "-"], input=_script(prelude, body, cases), capture_output=True, text=True,
                           timeout=timeout)
        stdout, failure = p.stdout, (None if p.returncode == 0 else f"returncode {p.returncode}: {p.stderr[-2000:]}")
    except subprocess.TimeoutExpired as e:
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        failure = f"no answer within {timeout} s"
    results: dict[str, str] = {}
    current = None
    for line in stdout.splitlines():
        if line.startswith("CASE "):
            current = line[5:]
        elif line.startswith("RESULT") and current is not None:
            results[current] = line
    return {name: results.get(name, f"DIED: the child died in case {current!r} ({failure})") for name in cases}


def sigint_cases(prelude: str, cases: dict[str, str], *, wait: float = 0.5) -> dict[str, tuple]:
    """{case: (first word, seconds from SIGINT to the child's answer, rest) or ("DIED", 0, why)}.

    Each case's code calls ``run(...)`` from ``prelude``, which prints ``READY``, starts a long call and prints
    ``STOPPED <time> <unchanged>`` when KeyboardInterrupt arrives; the parent sends SIGINT ``wait`` seconds
    after READY. The cases run one after the other in one child: each also checks that an interrupted call
    leaves the interpreter fit for the next one.
    """
    stderr = tempfile.TemporaryFile(mode="w+")  # a file, not a pipe: a full pipe would block the child
    proc = subprocess.Popen([sys.executable, "-c", _script(prelude, "CALL", cases)], stdout=subprocess.PIPE,
                            stderr=stderr, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    lines: queue.Queue = queue.Queue()  # a reader thread: select() on a buffered pipe misses lines it holds
    threading.Thread(target=lambda: [lines.put(ln) for ln in proc.stdout], daemon=True).start()
    out: dict[str, tuple] = {}

    def readline(seconds):
        try:
            return lines.get(timeout=seconds)
        except queue.Empty:
            return ""

    try:
        for name in cases:
            deadline, line = time.time() + 120, ""
            while not line.startswith("READY"):  # (an editable install may print its rebuild first)
                line = readline(max(0.0, deadline - time.time()))
                if not line:
                    raise RuntimeError(f"no READY from case {name!r} within 120 s")
            time.sleep(wait)  # inside the long call
            sent = time.time()
            proc.send_signal(signal.SIGINT)
            line = readline(60)
            words = line.split()
            if words[:1] == ["STOPPED"]:
                out[name] = ("STOPPED", float(words[1]) - sent, words[2])
            else:  # the cases after it would see this case's SIGINT: they are not run
                out[name] = (words[0] if words else "NOTHING", 0.0, line)
                raise RuntimeError(f"case {name!r} did not stop")
    except RuntimeError as e:
        proc.kill()
        proc.wait()
        stderr.seek(0)
        err = stderr.read()[-2000:]
        return {**out, **{n: ("DIED", 0.0, f"{e}; stderr: {err}") for n in cases if n not in out}}
    finally:
        proc.kill()
        proc.wait()
        stderr.close()
    return out
