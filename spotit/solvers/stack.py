"""Run solver calls on a thread with a large C stack.

z3 5.4.1 and cvc5 1.4.2 both recurse on term depth internally. Our printer keeps
the *text* flat, but ``define-fun`` is a macro: a 30k-deep ITE chain is a 30k-deep
term inside the solver, and both solvers then overflow the main thread's 8 MiB
stack and kill the whole Python process with SIGSEGV (measured; the z3 binary
crashes the same way unless ``ulimit -s unlimited``). A thread's stack size can be
chosen at creation, so every backend call runs on a short-lived thread with
:data:`STACK_BYTES` of stack (address space only: pages are committed when used).
The overhead is about 0.1-0.4 ms per call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

STACK_BYTES = 1 << 30
"""Stack of a solver thread: 1 GiB was enough for a 30k-deep ITE chain in both solvers."""

_lock = threading.Lock()  # threading.stack_size() is process-global


def call_with_big_stack(
    fn: Callable[..., T], *args: object, on_interrupt: Callable[[], None] | None = None
) -> T:
    """``fn(*args)`` on a fresh thread with a large stack; its exception is re-raised here.

    If the wait is interrupted (Ctrl-C), ``on_interrupt`` is called (e.g. to ask the
    solver to stop) before the interruption propagates. Falls back to a direct call
    when the platform refuses the stack size.
    """
    result: list[T] = []
    error: list[BaseException] = []

    def run() -> None:
        try:
            result.append(fn(*args))
        except BaseException as exc:  # handed to the caller's thread
            error.append(exc)

    try:
        with _lock:
            previous = threading.stack_size(STACK_BYTES)
            try:
                thread = threading.Thread(target=run, name="spotit-solver", daemon=True)
                thread.start()  # the stack size is read here
            finally:
                threading.stack_size(previous)
    except (ValueError, RuntimeError):
        return fn(*args)
    try:
        thread.join()
    except BaseException:
        if on_interrupt is not None:
            on_interrupt()
        raise
    if error:
        raise error[0]
    return result[0]
