"""A portfolio member: one solver backend serving commands over two pipes.

Run as ``python -m spotit.solvers.member NAME READ_FD WRITE_FD OPTIONS`` by
:mod:`spotit.solvers.portfolio`. Messages are pickled tuples:
``("reset",)`` starts a fresh session, ``("add", text)``, ``("push",)`` and
``("pop",)`` change it (answer ``("ok",)`` or ``("error", reason)``), and
``("check", timeout, assumptions)`` answers ``("result", status, model, reason,
seconds)``.
"""

from __future__ import annotations

import ast
import sys
from multiprocessing.connection import Connection

from spotit.solvers import get_solver


def serve(name: str, conn_in: Connection, conn_out: Connection, options: dict) -> None:
    solver = get_solver(name, **options)
    session = None
    while True:
        try:
            message = conn_in.recv()
        except (EOFError, OSError):
            return
        op = message[0]
        if op == "reset":
            if session is not None:
                session.close()
            session = None  # opened by the next command: the first text sets the logic
        elif op == "add" and session is None:
            session = solver.open(message[1])
        else:
            if session is None:
                session = solver.open("")
            if op == "check":
                res = session.check(timeout=message[1], assumptions=message[2])
                conn_out.send(("result", res.status.value, res.model and dict(res.model),
                               res.reason, res.seconds))
                continue
            if op == "add":
                session.add(message[1])
            elif op == "push":
                session.push()
            elif op == "pop":
                session.pop()
        error = session.error if session is not None else None
        conn_out.send(("ok",) if error is None else ("error", error))


def main(argv: list[str]) -> None:
    name, read_fd, write_fd, options = argv
    serve(name, Connection(int(read_fd), writable=False),
          Connection(int(write_fd), readable=False), ast.literal_eval(options))


if __name__ == "__main__":
    main(sys.argv[1:])
