"""``-n auto`` by default, only where it can work: loaded by ``-p tests.xdist_auto`` in
pyproject.toml's ``addopts``.

``-n auto`` in ``addopts`` itself made ``python -m pytest -p no:xdist`` an error (the
option is xdist's). Here it is added to the command line before pytest parses it,
unless pytest-xdist is not loaded (``-p no:xdist``, not installed), the command line
already says how many processes (``-n``/``--numprocesses``, ``--tx``) or says
``--dist no``, or this process is itself an xdist worker. So ``-n 0`` and
``-p no:xdist`` run the tests in this process, and ``--dist loadfile`` alone still
runs them on every core, as before.
"""

from __future__ import annotations

import os

import pytest

_PROCESSES = ("-n", "--numprocesses", "--tx")


def _given(args: list[str]) -> bool:
    """The command line already says how many processes, or not to distribute."""
    for i, arg in enumerate(args):
        if arg == "--":
            break
        for option in _PROCESSES:
            if arg == option or arg.startswith(option + "="):
                return True
            if option == "-n" and arg.startswith("-n") and arg[2:3] != "-":
                return True  # -n4, -nauto
        if arg == "--dist=no" or (arg == "--dist" and args[i + 1:i + 2] == ["no"]):
            return True
    return False


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser,
                                  args: list[str]) -> None:
    if (not early_config.pluginmanager.has_plugin("xdist")
            or os.environ.get("PYTEST_XDIST_WORKER")
            or hasattr(early_config, "workerinput")
            or _given(args)):
        return
    args[:0] = ["-n", "auto"]
