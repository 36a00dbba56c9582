"""Formulas to SMT-LIB 2.6 text: reserved-name operators, the printer, DAG walkers.

``ops`` adds the SMT-LIB operators pysmt lacks; :class:`SmtLibWriter` is the one
printer whose text both z3 and cvc5 read (``spotit.solvers`` runs it).
"""

from spotit.smt.printer import SmtLibWriter
from spotit.smt.walkers import collect_symbols, formula_size

__all__ = ["SmtLibWriter", "collect_symbols", "formula_size"]
