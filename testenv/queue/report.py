"""The queue oracle's tables: whether Kueue reached each scenario's declared state (per version),
and whether explain agrees with Kueue's record (per explained subject and phase), as text or
Markdown. Generated names are shown as ``<cq>`` (the scenario's ClusterQueue, the prefix of its
own objects) and UIDs as ``<uid>``, so the tables read the same from run to run."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from testenv.queue.judge import QueueRow
from testenv.queue.model import QueueScenario
from testenv.queue.run import QueueWorldRun, Reached
from testenv.queue.scenarios import AREAS

UID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass
class QueueReport:
    runs: list[QueueWorldRun]
    rows: list[QueueRow] = field(default_factory=list)
    reached: list[Reached] = field(default_factory=list)

    def __post_init__(self) -> None:
        for r in self.runs:
            self.rows += r.rows
            self.reached += r.reached

    @property
    def agreed(self) -> int:
        return sum(r.agree for r in self.rows)

    @property
    def reached_ok(self) -> int:
        return sum(not r.problems for r in self.reached)

    def namespaces(self) -> dict[tuple[str, str], tuple[str, str]]:
        """(scenario, version) → (namespace, ClusterQueue)."""
        return {(p.scenario.id, r.world.version): (p.ns, p.cq) for r in self.runs for p in r.placed}

    def scenarios(self) -> list[QueueScenario]:
        seen: dict[str, QueueScenario] = {}
        for r in self.runs:
            for s in r.scenarios:
                seen.setdefault(s.id, s)
        return list(seen.values())

    def seconds(self) -> dict[str, float]:
        return {r.world.name: r.seconds.get("total", 0.0) for r in self.runs}


def _clean(text: str, names: dict[tuple[str, str], tuple[str, str]]) -> str:
    for ns, cq in sorted(names.values(), key=lambda nc: -len(nc[1])):
        text = text.replace(cq, "<cq>").replace(ns, "<ns>")
    return " ".join(UID.sub("<uid>", text.replace("{cq}", "<cq>")).split())


def _cell(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _esc(text: str) -> str:
    return text.replace("|", "\\|")


def reached_table(report: QueueReport, markdown: bool = False, width: int = 70) -> str:
    """One row per scenario, phase and Job/Workload: what it declares, what Kueue did on each
    version ("same" when a later version did the same), and whether that is the declared state."""
    names = report.namespaces()
    versions = list(dict.fromkeys(r.world.version for r in report.runs))
    seen: dict[tuple[str, int, str], dict[str, Reached]] = {}
    for r in report.reached:
        seen.setdefault((r.scenario, r.phase, r.subject), {})[r.version] = r
    head = ("scenario", "after", "subject", "declared", *(f"Kueue {v}" for v in versions))
    rows = []
    for (scenario, phase, subject), by_version in seen.items():
        first = next(iter(by_version.values()))
        cells, shown = [], None
        for v in versions:
            r = by_version.get(v)
            if r is None:
                cells.append("did not run")
                continue
            did = _clean(r.kueue, names)
            verdict = "reached" if not r.problems else "NOT REACHED: " + _clean("; ".join(r.problems), names)
            cells.append(f"same ({verdict})" if did == shown else f"{did} ({verdict})")
            shown = did
        rows.append((scenario, f"phase {phase}", subject, _clean(first.want, names), *cells))
    return _render(head, rows, markdown, width, f"{report.reached_ok}/{len(report.reached)} states reached")


def agreement_table(report: QueueReport, markdown: bool = False, width: int = 70) -> str:
    names = report.namespaces()
    head = ("scenario", "Kueue", "subject", "Kueue's record", "explain said", "agree")
    rows = [(r.scenario, r.version, r.subject + ("" if r.last_phase else f" (phase {r.phase})"), _clean(r.kueue, names),
             _clean(r.explain, names), "yes" if r.agree else "NO: " + _clean(r.why, names)) for r in report.rows]
    return _render(head, rows, markdown, width, f"{report.agreed}/{len(report.rows)} agree")


def scenario_table(report: QueueReport) -> str:
    """Markdown: what each scenario sets up, its steps, and the Kueue versions it ran on."""
    versions: dict[str, list[str]] = {}
    for r in report.runs:
        for s in r.scenarios:
            versions.setdefault(s.id, []).append(r.world.version)
    lines = ["| area | scenario | what it sets up | steps | Kueue |", "|---|---|---|---|---|"]
    for s in sorted(report.scenarios(), key=lambda s: (AREAS.index(s.area), s.id)):
        steps = "; ".join(f"{i + 1}. {st.title}" for i, st in enumerate(s.steps)) or "—"
        only = f" ({s.why_versions})" if s.why_versions else ""
        lines.append(f"| {s.area} | {s.id} | {_esc(s.title)} | {_esc(steps)} | {', '.join(versions[s.id])}{only} |")
    return "\n".join(lines)


def _render(head: tuple[str, ...], rows: list[tuple[str, ...]], markdown: bool, width: int, total: str) -> str:
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(_esc(c) for c in row) + " |" for row in rows]
        return "\n".join(lines + ["", total])
    cells = [[_cell(c, width) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(head)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join([fmt.format(*head), *(fmt.format(*r) for r in cells), "", total])
