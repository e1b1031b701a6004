from __future__ import annotations

import json
import struct
import sys
import zlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import bench  # noqa: E402
from corrupt import KINDS, SCALING_ERRORS, corrupt_cases, scaling_pair  # noqa: E402
from pngchart import grouped_bars  # noqa: E402

from tinycode.check import check  # noqa: E402
from tinycode.engine.edits import token_distance  # noqa: E402
from tinycode.llm.fake import FakeLLM  # noqa: E402

BROKEN = "def area(w, h)\n    return w * h\n"
FIXED = "def area(w, h):\n    return w * h\n"


def test_score_follows_the_bifi_rule():
    case = {"broken": BROKEN, "fixed": FIXED, "lang": "python"}
    assert bench.score(case, FIXED) == {"parsed": True, "distance": 1, "success": True, "exact": True}
    unchanged = bench.score(case, BROKEN)
    assert not unchanged["success"] and not unchanged["parsed"]
    thrown_away = bench.score(case, "pass\n")  # parses, but is not a repair
    assert thrown_away["parsed"] and not thrown_away["success"] and not thrown_away["exact"]


def test_category_takes_out_names_and_lines():
    case = {"broken": "x = (1,\n", "lang": "python", "error": "SyntaxError: '(' was never closed (line 1)"}
    assert bench.category(case) == "'(' was never closed"
    assert bench.category({"broken": "int x = ;\n", "lang": "c"}).startswith(("unexpected", "missing", "expected"))


def test_corrupted_cases_are_broken_single_errors_of_clean_files(tmp_path):
    clean = tmp_path / "ok.js"
    clean.write_text("function f(a, b) {\n  if (a) {\n    return [a, b];\n  }\n  return 'none';\n}\n")
    cases = corrupt_cases([tmp_path], per_file=5, seed=1)
    assert len(cases) == 5 and {c["category"] for c in cases} <= set(KINDS)
    for case in cases:
        assert case["lang"] == "javascript" and case["fixed"] == clean.read_text()
        assert not check(case["broken"], "javascript").ok


def test_a_corruption_its_own_original_could_not_repair_under_the_rule_is_left_out(tmp_path):
    clean = tmp_path / "ok.js"
    clean.write_text('const greeting = "hello there, my dear old friend";\nconst n = [1, 2];\n')
    cases = corrupt_cases([tmp_path], per_file=20, seed=0)
    assert cases and all(1 <= token_distance(c["broken"], c["fixed"], "javascript") <= 4 for c in cases)
    # Dropping the long string's closing quote would need 7 tokens: never a case.
    assert not any('"hello there, my dear old friend;' in c["broken"] for c in cases)


@pytest.mark.parametrize("error", list(SCALING_ERRORS))
def test_scaling_pair_has_the_same_error_in_both_sizes(error):
    small, large = scaling_pair((ROOT / "examples" / "python" / "clean.py").read_text(), error)
    assert 80 <= small["broken"].count("\n") <= 130 and 4500 <= large["broken"].count("\n") <= 5500
    assert check(small["broken"], "python").problems[0].message == check(large["broken"], "python").problems[0].message
    assert check(small["fixed"], "python").ok and check(large["fixed"], "python").ok


def test_png_chart_is_a_valid_image(tmp_path):
    path = tmp_path / "c.png"
    grouped_bars(path, ["all", "missing"], ["tinycode", "react1"],
                 [("success %", [[90, 80], [60, 50]], ".0f"), ("median seconds", [[0.5, 0.4], [1.8, 2.0]], ".1f")])
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    idat = data.index(b"IDAT")
    length = struct.unpack(">I", data[idat - 4:idat])[0]
    raw = zlib.decompress(data[idat + 4:idat + 4 + length])
    assert len(raw) == height * (1 + 3 * width)
    assert len(set(raw)) > 3  # bars and text were drawn, not a blank page


def test_a_small_run_writes_every_report(tmp_path, monkeypatch):
    data = tmp_path / "cases.jsonl"
    rows = [{"id": "c-1", "broken": BROKEN, "fixed": FIXED, "error": "SyntaxError: expected ':' (line 1)"},
            {"id": "c-2", "broken": "print 'hi'\n", "fixed": "print('hi')\n"},
            {"id": "c-3", "broken": "this is not python at all (\n", "fixed": "x = 1\n"}]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    fake = FakeLLM(default="```python\ndef area(w, h):\n    return w * h\n```",
                   scorer=lambda prompt, text: -float(len(text)))
    import tinycode.llm

    monkeypatch.setattr(tinycode.llm, "load_llm", lambda *a, **k: fake)
    out = tmp_path / "out"
    assert bench.main(["--data", str(data), "--baseline", "whole", "--out", str(out), "--quiet",
                       "--timeout", "5"]) == 0
    report = json.loads((out / "bench.json").read_text())
    ours, theirs = report["systems"]["tinycode"], report["systems"]["whole"]
    assert ours["n"] == theirs["n"] == 3 and ours["crashes"] == 0
    assert ours["success"] == pytest.approx(2 / 3)  # the prose line is not repaired
    assert theirs["success"] == pytest.approx(1 / 3)  # the scripted answer fits case 1 only
    assert "| tinycode | 3 |" in (out / "bench.md").read_text()
    assert (out / "bench.png").read_bytes()[:4] == b"\x89PNG"


def test_the_scaling_report_gives_time_and_model_cost_per_size(tmp_path, monkeypatch):
    fake = FakeLLM(default="x", scorer=lambda prompt, text: -float(len(text)))
    import tinycode.llm

    monkeypatch.setattr(tinycode.llm, "load_llm", lambda *a, **k: fake)
    assert bench.main(["--data", "none", "--scaling", "--out", str(tmp_path), "--quiet"]) == 0
    scaling = json.loads((tmp_path / "bench.json").read_text())["scaling"]
    assert set(scaling) == set(SCALING_ERRORS)
    for row in scaling.values():
        assert row["100"]["success"] and row["5000"]["success"] and row["ratio"] > 0
        assert row["100"]["prompt_tokens"] == row["5000"]["prompt_tokens"]
    assert scaling["')' dropped"]["5000"]["model_calls"] == 1  # ranked: the model was asked
    text = (tmp_path / "bench.md").read_text()
    assert "| missing ':' | " in text and "| ')' dropped | " in text


def test_a_crashing_case_is_recorded_not_raised():
    def explode(case):
        raise RuntimeError("boom")

    record = bench._guarded(explode, {"id": "x", "lang": "python", "category": "c"})
    assert record["crash"].startswith("RuntimeError") and not record["success"]
    assert bench.summarise([record])["crashes"] == 1
