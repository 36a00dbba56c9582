"""Formulas to SMT-LIB 2.6 text: reserved-name operators, the printer, DAG walkers.

``ops`` adds the SMT-LIB operators pysmt lacks; :class:`SmtLibWriter` is the one
printer whose text both z3 and cvc5 read (``spotit.solvers`` runs it).
"""

import warnings

import pysmt.shortcuts  # noqa: F401  (it installs pysmt's own filter: ours goes before it)

# pysmt warns when it builds a division by the constant 0; in SQL that is NULL and the
# encodings guard it (SMT-LIB leaves x/0 unspecified, and nothing depends on it): the
# warning, printed once per place by the thousand in a fuzz run, says nothing to a user
warnings.filterwarnings("ignore", message="Warning: Division by 0", module=r"pysmt\.")

from spotit.smt.printer import SmtLibWriter  # noqa: E402
from spotit.smt.walkers import collect_symbols, formula_size  # noqa: E402

__all__ = ["SmtLibWriter", "collect_symbols", "formula_size"]
