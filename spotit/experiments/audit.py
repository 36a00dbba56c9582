"""The gold audit: which side is wrong when SpotIt refutes a prediction?

For each question of an evaluation run, the gold and every system's prediction are
partitioned into equivalence classes (``spotit.experiments.classes``): the checks the
run already made (gold vs each prediction) and its counterexamples come first, every
counterexample is run on SQLite against every member, and only members no database
tells apart are checked against each other (stored in the results file as ordinary
checks of the system ``AUDIT_SYSTEM``, so an interrupted audit resumes where it
stopped and no check runs twice). Then a finding per question:

- ``gold-alone``: no prediction is in the gold's class, and at least ``min_agree``
  systems share one other class;
- ``gold-minority``: the gold's class, counting the gold as one more author beside
  its systems, is smaller than another class of at least ``min_agree`` systems (the
  gold and one system against two is a tie, not a minority);
- ``gold-undecided``: such a class exists, but whether it differs from the gold was
  not decided (a timeout, an unsupported construct): no counterexample, no proposal;
- ``split``: no class outvotes the gold so (and the gold's is not the largest);
- ``consensus-with-gold``: the gold's class has the most systems (ties included).

A ``gold-alone``/``gold-minority`` finding carries the smallest confirmed
counterexample between the gold and the majority class, both results on it, what the
difference needs (``spotit.explain``, computed by one more check), a proposed
correction (the majority class's most readable member, accepted by SQLite on the
schema) and an evidence score whose every input is in the finding (``score``).
"""

from __future__ import annotations

import math
import re
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from typing import Any

from spotit.encodings.equivalence import Semantics
from spotit.errors import SpotItError
from spotit.experiments.classes import (
    APART,
    EQUIVALENT,
    UNDECIDED,
    Member,
    Outcome,
    Partition,
    Separations,
    cex_id,
    cex_size,
    members_of,
    normalize_sql,
    outcome_of_verdict,
    partition,
    sql_sha,
)
from spotit.experiments.inputs import Prediction, Question
from spotit.experiments.store import AUDIT_SYSTEM, PairRecord, ResultsStore

FINDINGS = ("gold-alone", "gold-minority", "gold-undecided", "split", "consensus-with-gold")
FLAGGED = ("gold-alone", "gold-minority")  # findings that say the gold is probably wrong
QUERY_SECONDS = 10.0  # per query, when a member runs on a counterexample database
# the evidence score's factors (docs/audit.md): what the separating difference needs
ORDINARY = {True: 1.0, None: 0.75, False: 0.5}  # needs nothing unusual / unknown / needs


class AuditError(SpotItError):
    """An audit cannot start (no run, no schemas)."""


# ---------------------------------------------------------------------- inputs


@dataclass
class QuestionState:
    """One question of the run: its members, the databases that separate them, the
    outcomes of the checks between them, and its partition so far."""

    question: Question
    semantics: str
    members: list[Member]
    records: dict[str, PairRecord]  # system -> the run's check of its prediction
    separations: Separations | None
    outcomes: dict[tuple[int, int], Outcome] = field(default_factory=dict)
    partition: Partition | None = None
    problem: str = ""  # why the question cannot be audited (no schema)
    rejected: dict[int, str] = field(default_factory=dict)  # members SQLite rejects: why

    def outcome(self, i: int, j: int) -> Outcome | None:
        return self.outcomes.get((min(i, j), max(i, j)))

    def set_outcome(self, i: int, j: int, o: Outcome) -> None:
        self.outcomes[(min(i, j), max(i, j))] = o


def effective(result: dict[str, Any], verdict: str, reason: str,
              counterexample: dict | None) -> tuple[str, str, dict | None]:
    """A check's verdict under the run's assumptions: with ``--constraints`` (and not
    ``--data realistic``) the verdict under the constraints, whose counterexample
    satisfies them; else the check's own."""
    c = result.get("constrained")
    if isinstance(c, dict) and c.get("verdict"):
        return c["verdict"], c.get("reason", ""), c.get("counterexample")
    return verdict, reason, counterexample


# ---------------------------------------------------------------------- the audit


@dataclass
class AuditOptions:
    min_agree: int | None = None  # default: half the systems, at least 2
    explain: bool = True  # search what each finding's counterexample needs
    workers: int | None = None
    memory_mb: int | None = 8192
    executor: str = "local"
    scheduler: str | None = None


class Audit:
    """The audit of one run of a results store."""

    def __init__(self, store: ResultsStore, run_id: int | None = None,
                 options: AuditOptions | None = None,
                 schemas: dict[str, tuple[str, str, Any]] | None = None):
        from spotit.experiments.runners import EvaluationSettings, spotit_version

        self.store = store
        self.options = options or AuditOptions()
        runs = store.runs()
        if not runs:
            raise AuditError(f"{store.path} holds no evaluation run")
        if run_id is None:
            self.run = runs[-1]
        else:
            found = [r for r in runs if r["run_id"] == run_id]
            if not found:
                raise AuditError(f"{store.path} has no run {run_id}")
            self.run = found[0]
        self.run_id = int(self.run["run_id"])
        s = self.run["settings"]
        names = {f.name for f in fields(EvaluationSettings)}
        self.settings = EvaluationSettings(**{k: v for k, v in s.items() if k in names})
        self.version = spotit_version()
        self.schemas = schemas if schemas is not None else store.schemas(self.run_id)
        self.data_checks = store.data_checks(self.run_id)
        self.records = [r for r, _ in store.run_records(self.run_id)]
        if any(r.semantics.startswith("spider2") for r in self.records):
            # a gold column found among a prediction's columns is not an equivalence:
            # members cannot be put in classes by it
            raise AuditError(f"run {self.run_id} compares results as Spider 2.0 does, "
                             "which is not an equivalence between queries: it cannot be "
                             "audited by classes")
        self.systems = [str(x) for x in s.get("systems") or sorted(
            {r.system for r in self.records})]
        n = len(self.systems)
        self.min_agree = self.options.min_agree or max(2, math.ceil(n / 2))
        self._schema_cache: dict[str, Any] = {}
        self.states: dict[str, QuestionState] = {}
        self.checks_run = 0
        self.checks_reused = 0

    # ------------------------------------------------------------ setup

    def schema(self, db_id: str):
        from spotit.schema import schema_from_ddl

        if db_id not in self._schema_cache:
            entry = self.schemas.get(db_id)
            if entry is None:
                self._schema_cache[db_id] = None
            else:
                try:
                    self._schema_cache[db_id] = schema_from_ddl(entry[1])
                except SpotItError:
                    self._schema_cache[db_id] = None
        return self._schema_cache[db_id]

    def prepare(self, only: set[str] | None = None, extra: dict[str, str] | None = None
                ) -> None:
        """Members, separations and known outcomes of every question (of ``only``), from
        the run; ``extra`` adds one more member to a question (a corrected gold)."""
        by_q: dict[str, list[PairRecord]] = {}
        for r in self.records:
            if only is None or r.question_id in only:
                by_q.setdefault(r.question_id, []).append(r)
        now = datetime.fromisoformat(self.settings.now)
        for qid, recs in by_q.items():
            first = recs[0]
            q = Question(qid, first.db_id, first.gold, first.question,
                         difficulty=first.difficulty, semantics=first.semantics)
            preds = {r.system: r.pred for r in recs}
            members = members_of(first.gold, preds)
            more = (extra or {}).get(qid)
            if more is not None and sql_sha(more) not in {m.sha for m in members}:
                members.append(Member(more))
            schema = self.schema(first.db_id)
            seps = None if schema is None else Separations(
                schema, members, Semantics(first.semantics), now, QUERY_SECONDS)
            st = QuestionState(q, first.semantics, members, {r.system: r for r in recs}, seps)
            if schema is None:
                st.problem = f"no schema stored for database {first.db_id}"
            else:
                for i, m in enumerate(members):
                    why = rejection(schema, m.sql)
                    if why is not None:
                        st.rejected[i] = why
            self.states[qid] = st
            self._known_outcomes(st)

    def _known_outcomes(self, st: QuestionState) -> None:
        """The run's own checks (gold vs each prediction) as outcomes, and their
        counterexamples as separating databases."""
        index = {m.sha: i for i, m in enumerate(st.members)}
        for system, r in sorted(st.records.items()):
            if r.pred is None:
                continue
            i = index.get(sql_sha(r.pred))
            if i is None or i == 0:
                continue
            verdict, reason, cex = effective(r.result, r.verdict, r.reason, r.counterexample)
            o = outcome_of_verdict(verdict, reason, f"evaluate:{system}", r.key, cex)
            known = st.outcome(0, i)
            if known is None or (known.status == UNDECIDED and o.status != UNDECIDED):
                st.set_outcome(0, i, o)
            if o.status == APART and st.separations is not None and cex:
                st.separations.add(cex, f"evaluate: {system} vs gold")

    # ------------------------------------------------------------ checks

    def _job(self, st: QuestionState, a: Member, b: Member, explain: bool = False):
        """The check of ``a`` (as the gold side) against ``b``, as an evaluation job."""
        from dataclasses import replace

        from spotit.experiments.runners import PairJob, check_key, job_breaches

        settings = replace(self.settings, explain=explain)
        q = Question(st.question.question_id, st.question.db_id, a.sql,
                     st.question.question, difficulty=st.question.difficulty,
                     semantics=st.semantics)
        fp, ddl, assumed = self.schemas[st.question.db_id]
        # what the test database breaks is not assumed here either: no class is merged
        # on an equivalence that needs it
        breaches = job_breaches(self.data_checks.get(st.question.db_id))
        key = check_key(settings, system=AUDIT_SYSTEM, question=q, pred=b.sql,
                        semantics=st.semantics, fingerprint=fp, assumed=assumed,
                        version=self.version, breaches=breaches)
        return PairJob(key, AUDIT_SYSTEM, q, Prediction(q.question_id, b.sql), ddl,
                       st.semantics, settings=asdict(settings), constraints=assumed,
                       breaches=breaches)

    def _partition(self, st: QuestionState) -> Partition:
        seps = st.separations
        order = range(len(st.members))
        st.partition = partition(
            st.members, (lambda i, j: seps.apart(i, j)) if seps else (lambda i, j: None),
            st.outcome, order, st.rejected)
        return st.partition

    def _apply(self, st: QuestionState, i: int, j: int, rec: PairRecord) -> None:
        verdict, reason, cex = effective(rec.result, rec.verdict, rec.reason,
                                         rec.counterexample)
        o = outcome_of_verdict(verdict, reason, "audit", rec.key, cex)
        st.set_outcome(i, j, o)
        if o.status == APART and cex and st.separations is not None:
            st.separations.add(cex, f"audit: {st.members[i].label} vs "
                                    f"{st.members[j].label}")

    def run_checks(self, progress: Callable[[int, int, dict[str, int]], None] | None = None
                   ) -> None:
        """Partition every question, running the checks the partitions still need in
        rounds (a check's outcome decides which check comes next), each stored as it
        finishes."""
        from spotit.experiments.batch import Task
        from spotit.experiments.runners import _batches, check_pair, record_of, run_tasks

        done = total = 0
        counts: Counter = Counter()
        while True:
            wanted: list[tuple[QuestionState, int, int, Any]] = []
            for st in self.states.values():
                if st.problem or st.separations is None:
                    continue
                part = self._partition(st)
                for i, j in part.needed:
                    job = self._job(st, st.members[i], st.members[j])
                    rec = self.store.get(job.key)
                    if rec is not None:
                        self.checks_reused += 1
                        self._apply(st, i, j, rec)
                    else:
                        wanted.append((st, i, j, job))
            if not wanted:
                if any(st.partition is not None and st.partition.needed
                       for st in self.states.values()):
                    continue  # stored checks answered them: partition again
                break
            total += len(wanted)
            by_key = {job.key: (st, i, j, job) for st, i, j, job in wanted}
            hard = self._hard_limit()
            tasks = [Task(key, check_pair, (job,), hard) for key, (_, _, _, job) in
                     by_key.items()]
            stream = run_tasks(tasks, self.options.workers or _cpus(), self.options.memory_mb,
                               self.options.executor, self.options.scheduler)
            for batch in _batches(stream, 1.0):
                recs = [record_of(by_key[key][3], out) for key, out in batch]
                self.store.put(recs)
                for rec in recs:
                    st, i, j, _ = by_key[rec.key]
                    self._apply(st, i, j, rec)
                    counts[rec.verdict] += 1
                self.checks_run += len(recs)
                done += len(recs)
                if progress is not None:
                    progress(done, total, dict(counts))

    def _hard_limit(self, explain: bool = False) -> float:
        searches = 3 if self.run["settings"].get("constraints") else 1
        searches += 1 if explain else 0
        return searches * self.settings.timeout + 30.0

    def place(self, st: QuestionState, pred: str | None, other: str) -> dict[str, Any]:
        """How a prediction stands against another member of its question (a corrected
        gold), from the complete partition: ``{"verdict", "how", "counterexample"}``."""
        if pred is None:
            return {"verdict": "error", "how": "no prediction", "counterexample": None}
        index = {m.sha: i for i, m in enumerate(st.members)}
        i, j = index.get(sql_sha(pred)), index.get(sql_sha(other))
        part = st.partition
        if i is None or j is None or part is None or st.separations is None:
            return {"verdict": "undecided", "how": st.problem or "not partitioned",
                    "counterexample": None}
        ci, cj = part.class_of(i), part.class_of(j)
        if ci is not None and ci == cj:
            how = "the same query" if i == j else "in the corrected gold's class (proved)"
            return {"verdict": "equivalent", "how": how, "counterexample": None}
        seps = st.separations
        cid = seps.apart(i, j)
        if cid is None and ci is not None and cj is not None:
            reps = {part.classes[ci][0], part.classes[cj][0]}
            for lk in part.links:
                if {lk.a, lk.b} == reps and lk.status == APART:
                    cid = lk.cex
                elif {lk.a, lk.b} == reps:
                    return {"verdict": "undecided", "how": lk.how, "counterexample": None}
        if cid is not None and cid in seps.databases:
            return {"verdict": "not_equivalent", "how": f"counterexample {cid} "
                    f"({seps.origins.get(cid, '')})", "counterexample": seps.databases[cid]}
        return {"verdict": "undecided", "how": "not decided", "counterexample": None}

    # ------------------------------------------------------------ findings

    def similarity(self) -> dict[tuple[str, str], float]:
        """Per pair of systems, the share of questions (both predicted) on which they
        wrote the same query text: systems that copy each other are not independent
        witnesses."""
        texts: dict[str, dict[str, str]] = {s: {} for s in self.systems}
        for r in self.records:
            if r.pred is not None:
                texts.setdefault(r.system, {})[r.question_id] = normalize_sql(r.pred)
        out = {}
        for a in texts:
            for b in texts:
                if a >= b:
                    continue
                both = set(texts[a]) & set(texts[b])
                same = sum(1 for q in both if texts[a][q] == texts[b][q])
                out[(a, b)] = out[(b, a)] = same / len(both) if both else 0.0
        return out

    def accuracies(self) -> dict[str, float | None]:
        """Each system's EX-TEST accuracy over the run (None where unknown)."""
        known: dict[str, list[bool]] = {}
        for r in self.records:
            if r.ex_test is not None:
                known.setdefault(r.system, []).append(bool(r.ex_test))
        return {s: (sum(v) / len(v) if (v := known.get(s)) else None) for s in self.systems}

    def findings(self) -> list[dict[str, Any]]:
        sim = self.similarity()
        acc = self.accuracies()
        out = []
        for qid in sorted(self.states, key=_qid_order):
            out.append(self._finding(self.states[qid], sim, acc))
        return out

    def _shape(self, st: QuestionState, sim: dict
               ) -> tuple[list[dict[str, Any]], int | None, int | None, str]:
        """(classes, the gold's class, the majority class, the finding) of a question
        whose partition is complete."""
        part = st.partition
        assert part is not None
        classes = [self._class_json(st, k, ms) for k, ms in enumerate(part.classes)]
        gold_class = part.class_of(0)
        sizes = [c["n_systems"] for c in classes]
        gold_size = sizes[gold_class] if gold_class is not None else 0
        # the gold is one more author: its class counts it beside its systems
        gold_votes = gold_size + 1 if gold_class is not None else 0
        big = [k for k in range(len(classes)) if k != gold_class
               and sizes[k] >= self.min_agree and sizes[k] > gold_votes
               and part.classes[k][0] not in st.rejected]  # agreeing on invalid SQL
        if big:
            majority = max(big, key=lambda k: (sizes[k], self._eff(classes[k]["systems"],
                                                                    sim), -k))
            if self._separation(st, gold_class, majority) is None:
                return classes, gold_class, majority, "gold-undecided"
            return (classes, gold_class, majority,
                    "gold-alone" if gold_size == 0 else "gold-minority")
        if all(gold_size >= size for size in sizes):
            return classes, gold_class, None, "consensus-with-gold"
        return classes, gold_class, None, "split"

    def _finding(self, st: QuestionState, sim: dict, acc: dict) -> dict[str, Any]:
        q = st.question
        base = {"question_id": q.question_id, "db_id": q.db_id, "question": q.question,
                "difficulty": q.difficulty, "semantics": st.semantics, "gold": q.gold,
                "min_agree": self.min_agree, "systems": len(self.systems),
                "no_prediction": sorted(s for s, r in st.records.items() if r.pred is None)}
        if st.problem or st.partition is None or st.partition.needed:
            return {**base, "finding": "split", "problem": st.problem or "not partitioned",
                    "classes": [], "score": None, "proposal": None, "counterexample": None}
        classes, gold_class, majority, finding = self._shape(st, sim)
        links = [{"a": lk.a, "b": lk.b, "status": lk.status, "how": lk.how, "key": lk.key,
                  "database": lk.cex} for lk in st.partition.links]
        out = {**base, "finding": finding, "gold_class": gold_class,
               "majority_class": majority, "classes": classes, "links": links,
               "members": [{"index": i, "sql": m.sql, "gold": m.is_gold,
                            "systems": list(m.systems), "rejected": st.rejected.get(i)}
                           for i, m in enumerate(st.members)],
               "undecided": [lk for lk in links if lk["status"] == UNDECIDED],
               "counterexample": None, "score": None, "proposal": None}
        if finding in FLAGGED:
            assert majority is not None
            out.update(self._evidence(st, classes, gold_class, majority, sim, acc))
        return out

    def _class_json(self, st: QuestionState, k: int, ms: list[int]) -> dict[str, Any]:
        systems = sorted({s for i in ms for s in st.members[i].systems})
        return {"id": k, "members": ms, "representative": ms[0],
                "gold": 0 in ms, "systems": systems, "n_systems": len(systems)}

    def _eff(self, systems: list[str], sim: dict) -> float:
        """The effective number of independent systems among ``systems``: each counts
        1 / (1 + its similarity to the others), so two systems that always write the
        same text count as one."""
        return sum(1.0 / (1.0 + sum(sim.get((s, t), 0.0) for t in systems if t != s))
                   for s in systems)

    def _separation(self, st: QuestionState, gold_class: int | None, majority: int
                    ) -> str | None:
        """The id of the smallest database that separates the gold from the majority
        class (confirmed on SQLite), or None."""
        seps = st.separations
        if seps is None or gold_class is None:
            return None
        part = st.partition
        assert part is not None
        found = []
        for i in part.classes[gold_class]:
            for j in part.classes[majority]:
                cid = seps.apart(i, j)
                if cid is not None:
                    found.append(cid)
        if not found:
            # a check's own counterexample SQLite could not re-run for every member
            for lk in part.links:
                pair = {lk.a, lk.b}
                if (lk.status == APART and lk.cex and pair & set(part.classes[gold_class])
                        and pair & set(part.classes[majority]) and lk.cex in seps.databases):
                    found.append(lk.cex)
        if not found:
            return None
        return min(found, key=lambda c: (cex_size(seps.databases[c]), c))

    def proposal(self, st: QuestionState, members: list[int]) -> int | None:
        """The class's most readable member SQLite accepts on the schema."""
        schema = st.separations.schema if st.separations else None
        for i in sorted(members, key=lambda i: readability(st.members[i])):
            if schema is None or accepted(schema, st.members[i].sql):
                return i
        return None

    def _evidence(self, st: QuestionState, classes: list[dict], gold_class: int | None,
                  majority: int, sim: dict, acc: dict) -> dict[str, Any]:
        part = st.partition
        seps = st.separations
        assert part is not None and seps is not None
        maj = classes[majority]
        prop = self.proposal(st, part.classes[majority])
        cid = self._separation(st, gold_class, majority)
        explanation, explained_cex = self._explanation(st, prop)
        if explained_cex is not None:
            ecid = seps.add(explained_cex, "audit: the explanation's check")
            if cid is None or cex_size(explained_cex) <= cex_size(seps.databases[cid]):
                cid = ecid
        gold_i = 0
        rep = prop if prop is not None else part.classes[majority][0]
        cex = seps.databases.get(cid) if cid else None
        needs = sorted({e["feature"] for e in explanation or [] if e.get("needed") is True})
        if explanation is None:
            ordinary = ORDINARY[None]
        elif needs:
            ordinary = ORDINARY[False]
        elif any(e.get("needed") is None and e.get("feature") != "inexact_division"
                 for e in explanation):
            ordinary = ORDINARY[None]
        else:
            ordinary = ORDINARY[True]
        gold_systems = classes[gold_class]["systems"] if gold_class is not None else []
        everyone = sorted({s for c in classes for s in c["systems"]})
        eff_agree = self._eff(maj["systems"], sim)
        eff_gold = self._eff(gold_systems, sim)
        eff_all = self._eff(everyone, sim) or 1.0
        support = max(0.0, (eff_agree - eff_gold) / eff_all)
        accs = [acc[s] for s in maj["systems"] if acc.get(s) is not None]
        accuracy = sum(accs) / len(accs) if accs else None
        acc_factor = 0.5 + 0.5 * accuracy if accuracy is not None else 0.75
        score = round(100.0 * support * ordinary * acc_factor, 1)
        return {
            "counterexample": cex, "counterexample_id": cid,
            "counterexample_origin": seps.origins.get(cid) if cid else None,
            "cex_bound": cex_size(cex)[0] if cex else None,
            "gold_result": seps.result(cid, gold_i) if cid else None,
            "majority_result": seps.result(cid, rep) if cid else None,
            "explanation": explanation,
            "needs": needs,
            "proposal": st.members[prop].sql if prop is not None else None,
            "proposal_systems": list(st.members[prop].systems) if prop is not None else [],
            "score": score,
            "score_inputs": {
                "agree": maj["n_systems"], "agree_systems": maj["systems"],
                "agree_effective": round(eff_agree, 3), "gold_class": len(gold_systems),
                "gold_effective": round(eff_gold, 3), "systems_effective": round(eff_all, 3),
                "support": round(support, 3), "accuracy": accuracy,
                "accuracy_factor": round(acc_factor, 3), "ordinary": ordinary,
                "similarity": {f"{a}~{b}": round(sim.get((a, b), 0.0), 3)
                               for a in maj["systems"] for b in maj["systems"] if a < b},
            },
        }

    # ------------------------------------------------------------ explanations

    def explanation_jobs(self) -> list[tuple[QuestionState, int, Any]]:
        """For each flagged question, the check (gold vs proposal) that explains what
        the difference needs, unless the run already explained that very pair."""
        if not self.options.explain:
            return []
        out = []
        for st, prop in self._provisional():
            if self._run_explanation(st, prop) is not None:
                continue
            out.append((st, prop, self._job(st, st.members[0], st.members[prop],
                                            explain=True)))
        return out

    def _provisional(self) -> list[tuple[QuestionState, int]]:
        """(question, proposal member) of every flagged question, before explanations."""
        sim = self.similarity()
        out = []
        for st in self.states.values():
            if st.problem or st.partition is None or st.partition.needed:
                continue
            _, _, majority, finding = self._shape(st, sim)
            if finding not in FLAGGED:
                continue
            assert majority is not None
            prop = self.proposal(st, st.partition.classes[majority])
            if prop is not None:
                out.append((st, prop))
        return out

    def _run_explanation(self, st: QuestionState, prop: int) -> PairRecord | None:
        """The run's own explained check of the gold against the proposal's text."""
        for system in st.members[prop].systems:
            r = st.records.get(system)
            if r is not None and r.result.get("explained") and r.verdict == "not_equivalent":
                return r
        return None

    def _explanation(self, st: QuestionState, prop: int | None
                     ) -> tuple[list[dict[str, Any]] | None, dict | None]:
        """(explanation, its counterexample) of the gold vs the proposal, if known."""
        if prop is None or not self.options.explain:
            return None, None
        rec = self._run_explanation(st, prop)
        if rec is None:
            rec = self.store.get(self._job(st, st.members[0], st.members[prop],
                                           explain=True).key)
        if rec is None or rec.verdict != "not_equivalent" or not rec.result.get("explained"):
            return None, None
        verdict, _, cex = effective(rec.result, rec.verdict, rec.reason, rec.counterexample)
        return rec.result.get("explanation") or [], cex if verdict == "not_equivalent" else None

    def run_explanations(self, progress=None) -> None:
        from spotit.experiments.batch import Task
        from spotit.experiments.runners import _batches, check_pair, record_of, run_tasks

        wanted = [(st, p, job) for st, p, job in self.explanation_jobs()
                  if self.store.get(job.key) is None]
        if not wanted:
            return
        by_key = {job.key: job for _, _, job in wanted}
        hard = self._hard_limit(explain=True)
        tasks = [Task(k, check_pair, (job,), hard) for k, job in by_key.items()]
        done = 0
        counts: Counter = Counter()
        stream = run_tasks(tasks, self.options.workers or _cpus(), self.options.memory_mb,
                           self.options.executor, self.options.scheduler)
        for batch in _batches(stream, 1.0):
            recs = [record_of(by_key[key], out) for key, out in batch]
            self.store.put(recs)
            self.checks_run += len(recs)
            done += len(recs)
            for r in recs:
                counts[r.verdict] += 1
            if progress is not None:
                progress(done, len(tasks), dict(counts))


# ---------------------------------------------------------------------- readability


_QUIRKS = (
    (re.compile(r"--|/\*"), "a comment"),
    (re.compile(r"```"), "a Markdown fence"),
    (re.compile(r"[^\x00-\x7f]"), "a non-ASCII character outside what the question needs"),
    (re.compile(r"\bLIMIT\s+-1\b", re.I), "LIMIT -1"),
    (re.compile(r"\bCOLLATE\b", re.I), "a collation"),
)


def readability(m: Member) -> tuple:
    """Sort key: fewer system-specific quirks, then shorter normalized text, then the
    member more systems wrote, then its text."""
    text = normalize_sql(m.sql)
    quirks = sum(1 for rx, _ in _QUIRKS if rx.search(text))
    return (quirks, len(text), -len(m.systems), text)


def accepted(schema, sql: str) -> bool:
    """SQLite prepares ``sql`` on the schema (an empty database)."""
    return rejection(schema, sql) is None


def rejection(schema, sql: str) -> str | None:
    """Why SQLite will not prepare ``sql`` on the schema, or None when it does."""
    try:
        conn = schema.create_database()
    except (sqlite3.Error, SpotItError) as e:
        return f"the schema does not load: {e}"
    try:
        conn.execute("EXPLAIN " + sql)
        return None
    except (sqlite3.Error, sqlite3.Warning, ValueError) as e:
        return f"SQLite rejects it: {e}"
    finally:
        conn.close()


def _qid_order(qid: str) -> tuple:
    return (0, int(qid), "") if qid.isdigit() else (1, 0, qid)


def _cpus() -> int:
    import os

    return os.cpu_count() or 1


# ---------------------------------------------------------------------- entry points


def audit(store: ResultsStore, *, run_id: int | None = None, min_agree: int | None = None,
          explain: bool = True, workers: int | None = None,
          schemas: dict[str, tuple[str, str, Any]] | None = None,
          progress: Callable[[str, int, int, dict[str, int]], None] | None = None,
          executor: str = "local", scheduler: str | None = None) -> list[dict[str, Any]]:
    """Audit a run of ``store`` (the latest by default): run the checks the classes
    still need (stored as they finish; a re-run reuses them), compute a finding per
    question, store the findings and return them (docs/results-store.md, "The gold
    audit"). ``schemas`` (db_id -> (fingerprint, DDL, constraints)) is for results
    files written before runs stored their schemas."""
    a = Audit(store, run_id, AuditOptions(min_agree=min_agree, explain=explain,
                                          workers=workers, executor=executor,
                                          scheduler=scheduler), schemas)
    if not a.schemas:
        raise AuditError(f"{store.path}: run {a.run_id} stored no schemas (written by an "
                         f"older SpotIt); give the benchmark's tables file (--tables)")
    started = time.monotonic()
    store.start_audit(a.run_id, {"min_agree": a.min_agree, "explain": explain})
    a.prepare()
    a.run_checks((lambda d, t, c: progress("checks", d, t, c)) if progress else None)
    a.run_explanations((lambda d, t, c: progress("explanations", d, t, c))
                       if progress else None)
    findings = a.findings()
    summary = summarize(findings)
    summary.update({"checks_run": a.checks_run, "seconds": round(time.monotonic() - started, 1)})
    store.start_audit(a.run_id, {"min_agree": a.min_agree, "explain": explain,
                                 "systems": a.systems, "summary": summary})
    store.put_findings(a.run_id, findings)
    return findings


def summarize(findings: list[dict[str, Any]]) -> dict[str, Any]:
    counts = Counter(f["finding"] for f in findings)
    return {"questions": len(findings),
            "findings": {k: counts.get(k, 0) for k in FINDINGS},
            "undecided_pairs": sum(len(f.get("undecided") or []) for f in findings)}


__all__ = ["APART", "EQUIVALENT", "FINDINGS", "FLAGGED", "UNDECIDED", "Audit", "AuditError",
           "AuditOptions", "audit", "cex_id", "readability", "summarize"]
