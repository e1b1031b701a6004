"""Machine-readable reports on stdout: JSON, GitHub workflow annotations, SARIF 2.1.0,
and ``--statistics``.

Every format is built from the same per-file reports ``check`` makes (and ``fix``'s,
which carry ``problems_after``): ``{"path", "language", "ok", "problems": [...]}``, or
``{"path", "error"}`` for a file that could not be read. stdout holds only the chosen
format; progress and summaries go to stderr.
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Mapping
from urllib.parse import quote

from .display import json_text, printable

FORMATS = ("text", "json", "github", "sarif")
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

# A problem's kind -> (SARIF rule id, short description).
RULES: dict[str, tuple[str, str]] = {
    "error": ("syntax-error", "Unexpected text: the parser could not read the code here."),
    "missing": ("missing-token", "A token the grammar requires is missing."),
    "compiler": ("compiler-error", "The language's own compiler or parser rejects the code."),
}


def add_output_arguments(parser: argparse.ArgumentParser, *, statistics: bool = True) -> None:
    """``--output-format``, its alias ``--json``, and (for ``check``) ``--statistics``."""
    parser.add_argument("--output-format", choices=FORMATS, metavar="{" + ",".join(FORMATS) + "}",
                        help="what stdout holds: text for people (default), json, github "
                             "(workflow annotations) or sarif (2.1.0, for code scanning)")
    parser.add_argument("--json", dest="output_format", action="store_const", const="json",
                        help="same as --output-format json")
    if statistics:
        parser.add_argument("--statistics", action="store_true",
                            help="print how often each message occurs instead of the problems")
    parser.set_defaults(output_format="text")


def problems_of(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The problems a report lists as still there (``fix`` reports: ``problems_after``
    of files not repaired)."""
    if "problems" in report:
        return list(report["problems"])
    if report.get("status") == "failed":
        return list(report.get("problems_before") or [])
    return []


def statistics(reports: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``[{"message", "count"}]``, most frequent first, then by message."""
    counts = Counter(p["message"] for r in reports for p in problems_of(r))
    return [{"message": m, "count": n} for m, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def statistics_text(rows: list[dict[str, Any]]) -> str:
    """The statistics as aligned lines: ``count  message``."""
    if not rows:
        return ""
    width = len(str(rows[0]["count"]))
    return "".join(printable(f"{row['count']:>{width}}  {row['message']}") + "\n" for row in rows)


def render_report(reports: list[Mapping[str, Any]], fmt: str, *, with_statistics: bool = False) -> str:
    """stdout's whole text for a non-streaming format (or ``--statistics``)."""
    if with_statistics:
        rows = statistics(reports)
        return json_text(rows) + "\n" if fmt == "json" else statistics_text(rows)
    if fmt == "json":
        return json_text(list(reports)) + "\n"
    if fmt == "github":
        return github(reports)
    if fmt == "sarif":
        return json_text(sarif(reports)) + "\n"
    raise ValueError(f"not a whole-report format: {fmt}")


# --- GitHub workflow commands ----------------------------------------------------------

def github(reports: Iterable[Mapping[str, Any]]) -> str:
    """One ``::error file=…,line=…,col=…::message`` line per problem, and per file that
    could not be read; GitHub shows them as annotations on the pull request."""
    lines = []
    for report in reports:
        path = str(report["path"])
        if "error" in report and not problems_of(report):
            lines.append(f"::error file={_property(path)},title=tinycode::{_data(str(report['error']))}")
            continue
        for problem in problems_of(report):
            props = {"file": path, "line": problem["line"], "col": problem["column"],
                     "endLine": problem["end_line"], "endColumn": problem["end_column"],
                     "title": f"tinycode ({problem.get('source', 'tree-sitter')})"}
            head = ",".join(f"{key}={_property(str(value))}" for key, value in props.items())
            lines.append(f"::error {head}::{_data(str(problem['message']))}")
    return "".join(line + "\n" for line in lines)


def _data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF escaped as GitHub's runner
    expects, and other control characters made visible (it lands in a terminal log)."""
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


# --- SARIF 2.1.0 -----------------------------------------------------------------------

def sarif(reports: Iterable[Mapping[str, Any]], *, cwd: str | None = None) -> dict[str, Any]:
    """A SARIF 2.1.0 log with one run. Paths under ``cwd`` are relative URIs against
    ``%SRCROOT%`` (what GitHub code scanning expects); others are ``file://`` URIs.
    Columns count Unicode code points, as tinycode's do. A file that could not be read
    is a tool execution notification, not a result."""
    from ..version import __version__

    base = os.path.abspath(cwd or os.getcwd())
    results, notifications = [], []
    used: dict[str, int] = {}
    for report in reports:
        location = {"physicalLocation": {"artifactLocation": _artifact(str(report["path"]), base)}}
        problems = problems_of(report)
        if "error" in report and not problems:
            notifications.append({"level": "error", "message": {"text": str(report["error"])},
                                  "locations": [location]})
            continue
        for problem in problems:
            rule_id = RULES.get(str(problem.get("kind")), RULES["error"])[0]
            used.setdefault(rule_id, len(used))
            region = {"startLine": problem["line"], "startColumn": problem["column"],
                      "endLine": problem["end_line"], "endColumn": max(problem["end_column"], problem["column"])}
            results.append({
                "ruleId": rule_id, "ruleIndex": used[rule_id], "level": "error",
                "message": {"text": str(problem["message"])},
                "locations": [{"physicalLocation": {**location["physicalLocation"], "region": region}}],
                "properties": {"source": problem.get("source"), "language": report.get("language")},
            })
    rules = [{"id": rule_id, "name": rule_id,
              "shortDescription": {"text": next(d for r, d in RULES.values() if r == rule_id)},
              "defaultConfiguration": {"level": "error"}}
             for rule_id in used]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "tinycode", "version": __version__, "semanticVersion": __version__,
                                "rules": rules}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(base).as_uri() + "/"}},
            "invocations": [{"executionSuccessful": not notifications,
                             "toolExecutionNotifications": notifications}],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def _artifact(path: str, base: str) -> dict[str, str]:
    if path == "-":
        return {"uri": "stdin"}
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, base)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return {"uri": Path(absolute).as_uri()}
    return {"uri": quote(relative.replace(os.sep, "/")), "uriBaseId": "%SRCROOT%"}
