"""A spy for tests that ask what a function was called with: the real function still
runs, and each call's value of one keyword argument is recorded."""

from __future__ import annotations


def record_keyword(monkeypatch, owner, name: str, keyword: str) -> list:
    """Replace ``owner.name`` (a module's function) by one that records ``keyword`` of
    every call, then calls the original; the recorded values, in call order."""
    seen: list = []
    real = getattr(owner, name)

    def spy(*args, **kw):
        seen.append(kw[keyword])
        return real(*args, **kw)

    monkeypatch.setattr(owner, name, spy)
    return seen
