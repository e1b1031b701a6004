"""The benchmarks' referee is the language's own tool, not tinycode's check."""

from __future__ import annotations

import shutil

import pytest

from tools import bench, referee

JAVA = "final class Totals {\n    private static final long ID = 2L;\n\n    int f() {\n        return 1;\n    }\n}\n"


@pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK")
def test_an_output_tree_sitter_accepts_and_javac_rejects_is_no_success():
    wrong = JAVA.replace("final long", "final if")  # tree-sitter-java reads it
    assert referee.confirm(JAVA, "Totals.java", "java") is True
    assert referee.confirm(wrong, "Totals.java", "java") is False
    case = {"broken": JAVA.replace("final long", "final"), "fixed": JAVA, "lang": "java",
            "source": "/usr/lib/jvm/src.zip/demo/Totals.java"}
    assert bench.score(case, JAVA)["success"]
    assert not bench.score(case, wrong)["parsed"]
    assert bench.referee_name("java") == "javac (parse)"


@pytest.mark.skipif(shutil.which("tsc") is None, reason="typescript (tsc) not installed")
def test_typescript_is_refereed_by_tsc_s_grammar_errors_not_its_type_errors():
    assert referee.confirm("let x: string | null! = null;\n", "a.ts", "typescript") is False
    assert referee.confirm("let x: Missing = unknownName;\n", "a.ts", "typescript") is True


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_javascript_that_is_neither_commonjs_nor_a_module_is_rejected_though_node_check_passes_it():
    # node --check x.js passes what fails as CommonJS the way a module would, unread.
    wrong = "if (ready, export) {\n  start()\n}\nconst a = ;\n"
    assert referee.confirm(wrong, "a.js", "javascript") is False
    assert referee.confirm("const a = require('b');\nmodule.exports = a;\n", "a.js", "javascript") is True
    assert referee.confirm("import a from 'b';\nexport default a;\n", "a.js", "javascript") is True


def test_a_language_without_a_tool_here_is_named_so():
    assert referee.name("css") == "none"
    assert bench.referee_name("css").startswith("tinycode check")


def test_the_report_counts_false_fixed_and_false_clean():
    records = [{"status": "fixed", "parsed": False, "referee": "r", "seconds": 1.0, "success": False,
                "exact": False, "model_calls": 0, "prompt_tokens": 0, "completion_tokens": 0},
               {"status": "clean", "parsed": False, "referee": "r", "seconds": 1.0, "success": False,
                "exact": False, "model_calls": 0, "prompt_tokens": 0, "completion_tokens": 0},
               {"status": "fixed", "parsed": True, "referee": "r", "seconds": 1.0, "success": True,
                "exact": True, "model_calls": 0, "prompt_tokens": 0, "completion_tokens": 0}]
    summary = bench.summarise(records)
    assert (summary["false_fixed"], summary["false_clean"], summary["refused"]) == (1, 1, 0)
