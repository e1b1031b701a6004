"""The working copy and the tools that read and edit it.

The model never retypes the file: it edits line ranges of the working copy (or
applies a suggested, parser-verified edit), and every edit is checked at once; one
that adds problems is undone and reported as rejected.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..candidates import Candidate, suggest
from ...check import CheckResult, check, number_lines, render, source_lines
from ..edits import replace_lines as apply_line_edit
from ..guard import MAX_PROBLEM_DISTANCE
from ..rules import AGENT_EDIT
from ..verifier import Verifier
from .toolkit import Observation, Tool, ToolError

MAX_VIEW = 30  # lines per view_lines call


@dataclass
class WorkingCopy:
    source: str
    language: str
    result: CheckResult | None = None  # the source's check, when the caller already has it
    edits: int = 0
    suggestions: list[Candidate] = field(default_factory=list)
    max_distance: int = MAX_PROBLEM_DISTANCE  # the locality guard: how far from a problem an edit may reach
    # The input of the whole repair, when earlier steps already changed it: the
    # locality guard measures every edit from there.
    original: str | None = None
    original_result: CheckResult | None = None
    last_rule: str = ""  # the rule of the last edit kept (``rules``)

    def __post_init__(self) -> None:
        if self.result is None:
            self.result = check(self.source, self.language)
        if self.original is None:
            self.original, self.original_result = self.source, self.result
        elif self.original_result is None:
            self.original_result = check(self.original, self.language)

    def problems_text(self) -> str:
        if self.result.ok:
            return "No problems: the file parses."
        return render(self.result, self.source)

    def window(self, start: int, end: int) -> str:
        lines = source_lines(self.source)
        start, end = max(1, start), min(len(lines), end)
        return number_lines(lines, [(start, end)]) if start <= end else "(no such lines)"

    def list_suggestions(self) -> str:
        """The verified candidate fixes of the copy as it stands, numbered for
        apply_fix, one per line ('' when there are none)."""
        self.suggestions = suggest(self.source, self.language, limit=4, result=self.result)
        return "\n".join(f"{number}. {c.edit.description} -> "
                         f"{c.edit.new_lines[0] if c.edit.new_lines else '(line deleted)'!r}"
                         + ("" if c.fixes_all else f" ({c.problems_after} problems left)")
                         for number, c in enumerate(self.suggestions, 1))

    def try_edit(self, new_source: str, rule: str = AGENT_EDIT) -> Observation:
        if new_source == self.source:
            raise ToolError("no_effect", "unchanged", "the edit changes nothing",
                            "look at the marked line and change it")
        verifier = Verifier(self.language, self.max_distance)
        refused = verifier.agent_refused(self.source, self.original, self.original_result.problems, new_source)
        if refused is not None and refused[0] == "too_large":
            raise ToolError("invalid_input", "edit_too_large", f"{refused[1]}, so it was undone",
                            "copy the marked line and change only the broken characters")
        if refused is not None:
            raise ToolError("invalid_input", "edit_too_far",
                            f"the edit changes code far from every problem ({refused[1]}), so it was undone",
                            "edit only the lines around the marked problem")
        after = check(new_source, self.language)
        if not verifier.agent_edit(self.result, after):
            shown = render(after, new_source, context=1, max_problems=2)
            raise ToolError("invalid_input", "edit_rejected",
                            "the edit adds problems, so it was undone. Your version:\n" + shown,
                            "keep the original lines and change only the broken part")
        self.source, self.result = new_source, after
        self.edits += 1
        self.last_rule = rule
        self.suggestions = []
        if after.ok:
            return Observation("Edit applied. No problems: the file parses.")
        return Observation("Edit applied. Remaining problems:\n" + render(after, new_source))


def build_tools(copy: WorkingCopy, *, web_backend: str = "offline", offline: bool = False) -> list[Tool]:
    """The agent's tools bound to one working copy."""

    def code_check() -> Observation:
        return Observation(copy.problems_text())

    def view_lines(start: int, end: int | None = None) -> Observation:
        end = start + 10 if end is None else end
        if end < start:
            start, end = end, start
        end = min(end, start + MAX_VIEW - 1)
        return Observation(copy.window(start, end))

    def replace_lines(start: int, text: str, end: int | None = None) -> Observation:
        total = len(source_lines(copy.source))
        extra_lines = text.rstrip("\n").count("\n")
        if end is None or (end > total >= start + extra_lines):
            # Past the end of the file, "end" was not meant as a line (often the column
            # of "line 2:28"): the text replaces as many lines as it has.
            end = start + extra_lines
        if not 1 <= start <= max(total, 1) or end < start - 1 or end > total:
            raise ToolError("invalid_input", "bad_range", f"lines {start}-{end} are outside 1-{total}",
                            "use the line numbers shown in the observation")
        try:
            return copy.try_edit(apply_line_edit(copy.source, start, end,
                                                 _keep_indentation(copy.source, start, end, text)))
        except ToolError as refused:
            # A small model often gives a range longer than its text (lines 2-3 for one
            # corrected line), which deletes code and is refused. The same text over as
            # many lines as it has is tried once; the original refusal stands otherwise.
            fitted_end = start + extra_lines
            if refused.code not in ("edit_too_large", "edit_rejected") or fitted_end >= end:
                raise
            try:
                observation = copy.try_edit(apply_line_edit(
                    copy.source, start, fitted_end, _keep_indentation(copy.source, start, fitted_end, text)))
            except ToolError:
                raise refused from None
            observation.text = f"Applied to lines {start}-{fitted_end} (as many as the text has). " \
                + observation.text
            return observation

    def suggest_fixes() -> Observation:
        listed = copy.list_suggestions()
        if not listed:
            return Observation("No small fix found; edit the lines with replace_lines.")
        return Observation(listed + "\nApply one with apply_fix.")

    def apply_fix(number: int) -> Observation:
        if not copy.suggestions:
            copy.suggestions = suggest(copy.source, copy.language, limit=4, result=copy.result)
        if not 1 <= number <= len(copy.suggestions):
            raise ToolError("invalid_input", "no_such_fix", f"there is no suggestion {number}",
                            "call suggest_fixes first")
        chosen = copy.suggestions[number - 1]
        return copy.try_edit(chosen.source_after, chosen.edit.rule)

    def web_search(query: str, k: int = 3) -> Observation:
        try:
            from ... import websearch  # optional component
        except ImportError:
            raise ToolError("permanent", "no_backend", "no search backend configured",
                            "continue without search") from None
        try:
            results = websearch.search(query, k=k, backend=web_backend, offline=offline,
                                           language=copy.language)
        except websearch.SearchError as exc:
            raise ToolError(exc.error_class, "search_failed", exc.detail, exc.hint) from None
        return Observation(websearch.format_results(results))

    line_aliases = {"line": "start", "start_line": "start", "line_start": "start", "from": "start",
                    "end_line": "end", "line_end": "end", "to": "end", "stop": "end",
                    "code": "text", "new_text": "text", "content": "text", "replacement": "text",
                    "new_code": "text", "lines": "text", "new": "text"}
    return [
        Tool("code_check", "list the problems left, with numbered lines", {}, code_check),
        Tool("replace_lines", "replace lines start..end with text (the new lines, correctly indented)",
             {"start": {"type": "integer"}, "end": {"type": "integer"}, "text": {"type": "string"}},
             replace_lines, required=("start", "text"), aliases=line_aliases),
        Tool("suggest_fixes", "list small verified fixes", {}, suggest_fixes),
        Tool("apply_fix", "apply suggested fix number n", {"number": {"type": "integer"}}, apply_fix,
             required=("number",), aliases={"n": "number", "fix": "number", "index": "number", "id": "number"}),
        Tool("view_lines", "show lines start..end", {"start": {"type": "integer"}, "end": {"type": "integer"}},
             view_lines, required=("start",), aliases=line_aliases),
        Tool("web_search", "look up what an error message means",
             {"query": {"type": "string"}, "k": {"type": "integer"}},
             web_search, required=("query",), aliases={"q": "query", "text": "query"}, timeout=15.0,
             retries=1),
    ]


def _keep_indentation(source: str, start: int, end: int, text: str) -> str:
    """Small models often drop the leading indentation of a one-line replacement."""
    lines = source_lines(source)
    if start != end or "\n" in text.strip("\n") or not 1 <= start <= len(lines):
        return text
    original = lines[start - 1]
    indent = original[: len(original) - len(original.lstrip())]
    if indent and text.strip() and not text[:1].isspace():
        return indent + text
    return text
