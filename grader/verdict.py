"""A grading's verdict: per target, the tests that failed (each a structured Failure) and those that
did not run, frozen; and its JSON form, ``drill grade --json`` (docs/contract.md), which the history
also keeps for each graded version.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any


class GradeError(RuntimeError):
    """The grader could not give a verdict (a problem of the setup, not of the solution)."""


CUT_MARK = "[output cut: "
"""How a failure's ``output`` ends when the test printed more than the grader keeps."""


def headline(symbol: str | None, case: str | None, text: str) -> str:
    """A failure's first line, the one place it is written: ``{symbol} [{case}]: {text}``; a failure of
    the whole file (no symbol, no case) is its text alone. The grader's message starts with it
    (grader/check.py), and a verdict shows it beside a timer (``Failure.headline``)."""
    return text if symbol is None else f"{symbol} [{case}]: {text}"


@dataclass(frozen=True)
class Failure:
    """A test that ran and failed: the grader's verdict, whole (``message``) and in parts."""

    test: str
    """Its id: ``test_unbroadcast.py::test_unbroadcast[to-0d]``."""
    message: str
    """The verdict as the user reads it; the parts below are all in it."""
    symbol: str | None = None
    """The function at fault (``Tensor.__mul__``); None for the file as a whole (it cannot be imported)."""
    case: str | None = None
    """The case it failed on (``broadcast-row``)."""
    text: str = ""
    """What is wrong, in one line (``a.grad has shape (3,), torch's is (2, 3)``)."""
    hint: str | None = None
    location: tuple[str, ...] = ()
    """The user's lines the error went through, last one last (``solutions/engine.py:12 in Tensor.__mul__: ...``:
    the file as the command that graded it was given it, or from its current folder: ``Failure.renamed``)."""
    notes: tuple[str, ...] = ()
    """Other symbols found wrong too, that this failure may come from."""
    output: str = ""
    """What the test printed (stdout and stderr, as written), its start when long: then a last line
    says how much was cut (``[output cut: N more lines not kept]``, grader/conftest.py)."""

    @property
    def headline(self) -> str:
        """The verdict's first line: what fits beside a timer."""
        if self.symbol is None and not self.text:
            return self.message.partition("\n")[0]
        return headline(self.symbol, self.case, self.text)

    @property
    def printed(self) -> tuple[list[str], int]:
        """What the test printed, as the lines kept, and how many more lines were cut."""
        lines = self.output.rstrip().splitlines()
        if lines and lines[-1].startswith(CUT_MARK):
            digits = "".join(c for c in lines[-1] if c.isdigit())
            return lines[:-1], int(digits or 0)
        return lines, 0

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Failure:
        """From the report's record (or a stored ``--json`` failure; keys it lacks take their defaults)."""
        message = str(data.get("message", ""))
        return cls(
            test=str(data.get("test", "")),
            message=message,
            symbol=data.get("symbol"),
            case=data.get("case"),
            text=str(data.get("text") or message.partition("\n")[0]),
            hint=data.get("hint"),
            location=tuple(data.get("location") or ()),
            notes=tuple(data.get("notes") or ()),
            output=str(data.get("output") or ""),
        )

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "location": list(self.location), "notes": list(self.notes)}

    def renamed(self, full: str, shown: str) -> Failure:
        """The file named ``shown`` (as the user's command names it: from its current folder) where the
        grader wrote ``full`` (the absolute path it graded: ``/abs/x.py:12 in f``), in the grader's words
        (not in what the test printed): its locations are ``path:LINE`` that an editor's terminal opens."""
        if full == shown:
            return self
        return replace(
            self,
            message=self.message.replace(full, shown),
            text=self.text.replace(full, shown),
            hint=self.hint.replace(full, shown) if self.hint else self.hint,
            location=tuple(line.replace(full, shown) for line in self.location),
            notes=tuple(note.replace(full, shown) for note in self.notes),
        )


MAX_JSON_FAILURES = 5
"""How many failures a target lists in ``drill grade --json``."""


@dataclass(frozen=True)
class TargetResult:
    target: str
    tests: int
    failed: int
    """The tests that ran and failed (a test not run is not counted here, but in ``not_run``)."""
    failures: tuple[Failure, ...] = ()
    """The failed tests, the one to fix first first."""
    not_run: int = 0
    """Tests that did not run: an earlier test of the target ran past its time limit, or the
    grading process died before them."""
    not_run_reason: str = ""

    @property
    def passed(self) -> bool:
        return self.tests > 0 and self.failed == 0 and self.not_run == 0

    @property
    def not_run_line(self) -> str | None:
        """``2 tests not run: why``, when tests were not run."""
        if not self.not_run:
            return None
        return f"{self.not_run} test{'s' if self.not_run != 1 else ''} not run: {self.not_run_reason}"

    @property
    def messages(self) -> tuple[str, ...]:
        """What to tell the user, in order: each failure's message, then why tests were not run."""
        line = self.not_run_line
        return tuple(f.message for f in self.failures) + ((line,) if line else ())

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "tests": self.tests,
            "failed": self.failed,
            "not_run": self.not_run,
            "not_run_reason": self.not_run_reason,
            "failures": [f.to_json() for f in self.failures[:MAX_JSON_FAILURES]],
        }

    @classmethod
    def from_json(cls, target: str, data: dict[str, Any]) -> TargetResult:
        return cls(
            target=target,
            tests=int(data.get("tests", 0)),
            failed=int(data.get("failed", 0)),
            failures=tuple(Failure.from_json(f) for f in data.get("failures", ()) if isinstance(f, dict)),
            not_run=int(data.get("not_run", 0)),
            not_run_reason=str(data.get("not_run_reason", "")),
        )


@dataclass(frozen=True)
class GradeResult:
    file: str
    targets: tuple[TargetResult, ...]
    seconds: float
    notes: tuple[str, ...] = ()
    """What the user should know beyond the tests' verdicts (a thread left running)."""

    @property
    def passed(self) -> bool:
        return all(t.passed for t in self.targets)

    def get(self, target_id: str) -> TargetResult:
        return next(t for t in self.targets if t.target == target_id)

    def renamed(self, full: str, shown: str) -> GradeResult:
        """The verdict with the file named ``shown`` where it says ``full`` (``Failure.renamed``)."""
        targets = tuple(replace(t, failures=tuple(f.renamed(full, shown) for f in t.failures)) for t in self.targets)
        return replace(self, file=shown if self.file == full else self.file, targets=targets)

    def to_json(self) -> dict[str, Any]:
        """The ``drill grade --json`` object (docs/contract.md)."""
        return {
            "file": self.file,
            "passed": self.passed,
            "targets": {t.target: t.to_json() for t in self.targets},
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GradeResult:
        """A verdict kept as JSON (the history keeps each graded version's)."""
        targets = data.get("targets")
        if not isinstance(targets, dict) and isinstance(data.get("failures"), dict):  # kept by versions before 0.2
            targets = {
                t: {"failures": [{"message": m} for m in messages], "failed": len(messages)}
                for t, messages in data["failures"].items()
            }
        return cls(
            file=str(data.get("file", "")),
            targets=tuple(
                TargetResult.from_json(t, v) for t, v in (targets.items() if isinstance(targets, dict) else ())
            ),
            seconds=float(data.get("seconds", 0.0)),
            notes=tuple(str(n) for n in data.get("notes", ())),
        )
