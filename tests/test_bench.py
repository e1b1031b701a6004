"""tools/bench.py: scoring, sampling, the rows per fix distance and length, the reports,
and the determinism check (the same outputs with busy-looping processes beside it).

``tools`` is imported as a package from the repository root (``python -m pytest`` puts
it on the path; pyproject's ``pythonpath`` does so for a bare ``pytest``); command-line
behaviour that needs no scripted model runs the scripts as subprocesses."""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from tinycode.check import check
from tinycode.engine.edits import token_distance
from fake_llm import FakeLLM
from tools import bench
from tools.compare_runs import differences
from tools.corrupt import KINDS, SCALING_ERRORS, corrupt_cases, scaling_pair
from tools.pngchart import grouped_bars

ROOT = Path(__file__).resolve().parent.parent
DEV_SET = ROOT / ".." / "shared" / "data" / "so_dev.jsonl"

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
    # Rows per human-fix distance (1, 2, 3+ tokens) and per snippet length, in bin order.
    assert list(report["by_fix_distance"]["tinycode"]) == ["1", "2", "3+"]
    assert report["by_fix_distance"]["tinycode"]["1"]["n"] == 1
    assert set(report["by_fix_distance"]["tinycode"]["3+"]) >= {"success", "exact", "median_seconds", "p95_seconds"}
    assert list(report["by_length"]["tinycode"]) == ["1-2"]
    text = (out / "bench.md").read_text()
    assert "## By human-fix distance (tokens)" in text and "## By snippet length (lines)" in text
    assert "| 3+ | 1 | 0.0% |" in text  # the prose line: n 1, never repaired
    # Every output is kept, with its hash, for the determinism check.
    record = report["cases"]["tinycode"][0]
    assert record["output"] == FIXED and len(record["output_sha256"]) == 64


def _dev_file(path: Path, count: int) -> Path:
    """``count`` cases with ids dev-0.. whose fixes are all one token away."""
    path.write_text("".join(json.dumps({"id": f"dev-{i}", "broken": f"x{i} = (1,\n", "fixed": f"x{i} = (1,)\n"})
                            + "\n" for i in range(count)))
    return path


def _ids(*argv: str) -> list[str]:
    return [case["id"] for case in bench.load_cases(bench._parser().parse_args(list(argv)))]


def test_limit_draws_a_seeded_sample_from_the_whole_split_in_file_order(tmp_path):
    data = str(_dev_file(tmp_path / "dev.jsonl", 200))
    first = _ids("--data", data, "--split", "odd", "--limit", "20")
    numbers = [int(i.split("-")[1]) for i in first]
    assert len(first) == 20 and all(n % 2 == 1 for n in numbers)
    assert numbers == sorted(numbers)  # run in file order
    assert max(numbers) > 150 and first != [f"dev-{n}" for n in range(1, 40, 2)]  # not the head
    assert _ids("--data", data, "--split", "odd", "--limit", "20") == first  # seeded: the same again
    assert _ids("--data", data, "--split", "odd", "--limit", "20", "--seed", "1") != first
    assert _ids("--data", data, "--split", "odd", "--sample", "20") == first  # --sample is an alias
    assert len(_ids("--data", data, "--split", "odd", "--limit", "500")) == 100  # more than there are: all


def test_fix_distance_and_length_bins():
    def case(broken, fixed=None):
        return {"broken": broken, "fixed": fixed, "lang": "python"}

    assert bench.fix_distance(case(BROKEN, FIXED)) == "1"
    assert bench.fix_distance(case("print 'hi'\n", "print('hi')\n")) == "2"
    assert bench.fix_distance(case("x = (1, 2\n", "x = [1, 2, 3]\n")) == "3+"
    assert bench.fix_distance(case(BROKEN)) == "no fix"
    assert [bench.length_bin("x\n" * n) for n in (0, 1, 2, 3, 5, 6, 10, 11, 30, 31, 100, 101)] == [
        "1-2", "1-2", "1-2", "3-5", "3-5", "6-10", "6-10", "11-30", "11-30", "31-100", "31-100", "101+"]


def test_out_may_name_the_json_file(tmp_path, monkeypatch):
    data = tmp_path / "cases.jsonl"
    data.write_text(json.dumps({"id": "c-1", "broken": BROKEN, "fixed": FIXED}) + "\n")
    import tinycode.llm

    monkeypatch.setattr(tinycode.llm, "load_llm", lambda *a, **k: FakeLLM(default="x"))
    out = tmp_path / "runs" / "first.json"
    assert bench.main(["--data", str(data), "--out", str(out), "--quiet"]) == 0
    assert json.loads(out.read_text())["systems"]["tinycode"]["n"] == 1
    assert out.with_suffix(".md").exists() and out.with_suffix(".png").exists()


def _report(*outputs: tuple[str, str | None]) -> dict:
    return {"cases": {"tinycode": [{"id": i, "output_sha256": h, "crash": None if h else "RuntimeError: boom"}
                                   for i, h in outputs]}}


def test_compare_runs_lists_the_cases_whose_output_differs(tmp_path):
    a = _report(("c-1", "aa"), ("c-2", "bb"), ("c-3", None))
    b = _report(("c-1", "aa"), ("c-2", "cc"), ("c-3", None), ("c-4", "dd"))
    assert [row["id"] for row in differences(a, b)] == ["c-2", "c-4"]  # two alike crashes agree
    assert differences(a, a) == []
    paths = []
    for name, report in (("a", a), ("b", b)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(report))
    script = [sys.executable, str(ROOT / "tools" / "compare_runs.py")]
    same = subprocess.run([*script, str(paths[0]), str(paths[0])], capture_output=True, text=True, check=False)
    assert same.returncode == 0 and "3 of 3 outputs identical" in same.stdout
    diff = subprocess.run([*script, *map(str, paths)], capture_output=True, text=True, check=False)
    assert diff.returncode == 1 and diff.stdout.startswith("c-2: ") and "2 differ" in diff.stdout
    missing = subprocess.run([*script, str(paths[0]), str(tmp_path / "none.json")], capture_output=True,
                             text=True, check=False)
    assert missing.returncode == 2


def test_a_sampled_run_is_compared_on_the_cases_it_ran():
    from tools.compare_runs import report_differences

    full = _report(("c-1", "aa"), ("c-2", "bb"), ("c-3", "cc"))
    out = io.StringIO()
    assert report_differences(full, _report(("c-2", "bb")), stream=out, sample=True) == 0
    assert "1 of 1 outputs identical" in out.getvalue()
    assert report_differences(full, _report(("c-2", "xx")), stream=io.StringIO(), sample=True) == 1
    assert report_differences(full, _report(("c-2", "bb")), stream=io.StringIO()) == 1  # not a sample: all count


def test_bench_script_runs_as_a_subprocess():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "bench.py"), "--help"], capture_output=True,
                          text=True, check=False, cwd=ROOT.parent)
    assert done.returncode == 0 and "--busy N" in done.stdout and "--limit N" in done.stdout


# A few cases that take different paths: one candidate, several ranked by the model, a
# Python 2 print, a rewrite of the window, and one only the agent's turn repairs.
DETERMINISM_CASES = [
    {"id": "d-1", "broken": BROKEN, "fixed": FIXED},
    {"id": "d-2", "broken": "total = sum([1, 2, 3]\nprint(total)\n", "fixed": "total = sum([1, 2, 3])\nprint(total)\n"},
    {"id": "d-3", "broken": "for x in range(3):\n    print x\n", "fixed": "for x in range(3):\n    print(x)\n"},
    {"id": "d-4", "broken": "data = {'a': 1 'b': 2}\nvalues = [data['a'], data['b']\n",
     "fixed": "data = {'a': 1, 'b': 2}\nvalues = [data['a'], data['b']]\n"},
    {"id": "d-5", "broken": "def (x)):\n    return x\n", "fixed": "def double(x):\n    return x\n"},
]


def _twice_once_busy(tmp_path, monkeypatch, data: Path, *options: str) -> tuple[dict, dict, int]:
    """Two bench runs of the same cases, the second beside two busy-looping processes and
    compared with the first: (first report, second report, the compare's exit code)."""
    started: list[subprocess.Popen] = []
    real_start = bench.start_busy

    def start(count):
        started.extend(real_start(count))
        assert all(process.poll() is None for process in started)  # spinning while the cases run
        return started

    monkeypatch.setattr(bench, "start_busy", start)
    calm, busy = tmp_path / "calm.json", tmp_path / "busy.json"
    assert bench.main(["--data", str(data), "--out", str(calm), "--quiet", *options]) == 0
    assert not started
    code = bench.main(["--data", str(data), "--out", str(busy), "--quiet", "--busy", "2", "--compare", str(calm),
                       *options])
    assert len(started) == 2 and all(process.returncode is not None for process in started)  # stopped after
    first, second = (json.loads(path.read_text()) for path in (calm, busy))
    assert second["config"]["busy"] == 2
    return first, second, code


def test_the_same_cases_give_the_same_outputs_beside_busy_loops(tmp_path, monkeypatch):
    from scripted import AGENT_FIX

    data = tmp_path / "cases.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in DETERMINISM_CASES))
    # Answers that depend only on the prompt: scores by length, the agent's scripted fix.
    fake = FakeLLM(default=AGENT_FIX, scorer=lambda prompt, text: -float(len(text)) - 0.01 * text.count("]"))
    import tinycode.llm

    monkeypatch.setattr(tinycode.llm, "load_llm", lambda *a, **k: fake)
    first, second, code = _twice_once_busy(tmp_path, monkeypatch, data, "--timeout", "20")
    outputs = [[(r["id"], r["output"]) for r in report["cases"]["tinycode"]] for report in (first, second)]
    assert outputs[0] == outputs[1] and code == 0
    assert first["systems"]["tinycode"]["crashes"] == 0


@pytest.mark.model
def test_real_model_outputs_do_not_depend_on_machine_load(tmp_path, monkeypatch):
    """The real default model on a few dev-set cases drawn over the whole file (the issue's
    determinism check in small; the bench does it for all with --busy and --compare)."""
    if not DEV_SET.exists():
        pytest.skip("../shared/data/so_dev.jsonl is not here")
    # The deadline is a safety bound, not the budget: beside two busy loops on two cores,
    # llama.cpp's threads wait on each other and one generation took over 30 s (2.5 s
    # calm), so the bound is set where it cannot decide an output.
    first, second, code = _twice_once_busy(tmp_path, monkeypatch, DEV_SET, "--split", "odd", "--limit", "6",
                                           "--seed", "3", "--timeout", "180")
    assert first["config"]["model"] != "fake"
    outputs = [[(r["id"], r["output"]) for r in report["cases"]["tinycode"]] for report in (first, second)]
    assert outputs[0] == outputs[1] and code == 0


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


def test_jobs_go_with_a_model_server_only(capsys):
    # The model in process repairs one case at a time; threads share a server's slots.
    with pytest.raises(SystemExit) as stopped:
        bench.main(["--jobs", "2", "--data", "none"])
    assert stopped.value.code == 2
    assert "--jobs N (N >= 1) goes with --base-url" in capsys.readouterr().err
