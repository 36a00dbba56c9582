"""Scalar function calls: arity check, argument values, then the registered encoding."""

from __future__ import annotations

from spotit.encodings.encoder import Encoder, Env
from spotit.encodings.registry import FUNCTIONS, encodes
from spotit.encodings.values import Value
from spotit.errors import BindError, Unsupported
from spotit.ir import scalar as S
from spotit.ir.types import BINARY


@encodes(S.Call)
def encode_call(enc: Encoder, e: S.Call, env: Env) -> Value:
    spec = FUNCTIONS.get(e.name)
    if spec is None:
        raise Unsupported(f"function {e.name}()")
    n = len(e.args)
    if n < spec.min_args or (spec.max_args is not None and n > spec.max_args):
        raise BindError(f"wrong number of arguments to function {e.name}()")
    if not spec.exact:
        enc.approximate(f"{e.name}()")
    args = [enc.value(a, env) for a in e.args]
    if spec.collation:
        found = (S.collation_of(a) for a in e.args)
        c = next((x for x in found if x is not None), None)
        return spec.encode(enc, args, collation=c.name if c is not None else BINARY)
    return spec.encode(enc, args)
