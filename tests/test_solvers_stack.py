"""Solver calls run on a thread with a large stack (both solvers recurse on term depth)."""

from __future__ import annotations

import ctypes
import sys
import threading

import pytest

from spotit.solvers.stack import STACK_BYTES, call_with_big_stack


def current_stack_bytes() -> int:
    """Size of the calling thread's stack, from glibc's pthread_getattr_np."""
    libc = ctypes.CDLL(None)
    attr = ctypes.create_string_buffer(256)  # larger than any pthread_attr_t
    if libc.pthread_getattr_np(ctypes.c_ulong(threading.get_ident()), attr) != 0:
        pytest.skip("pthread_getattr_np failed")
    addr, size = ctypes.c_void_p(), ctypes.c_size_t()
    libc.pthread_attr_getstack(attr, ctypes.byref(addr), ctypes.byref(size))
    libc.pthread_attr_destroy(attr)
    return size.value


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_calls_get_the_large_stack() -> None:
    assert call_with_big_stack(current_stack_bytes) >= STACK_BYTES
    assert threading.stack_size() == 0  # the global setting is restored


def test_result_and_exception_cross_threads() -> None:
    assert call_with_big_stack(lambda a, b: a + b, 2, 3) == 5

    def fail() -> None:
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        call_with_big_stack(fail)
