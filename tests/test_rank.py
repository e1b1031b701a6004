from __future__ import annotations

import pytest

from tinycode.engine.candidates import suggest
from tinycode.llm.base import ScoringUnsupported
from fake_llm import FakeLLM
from tinycode.engine.rank import rank, scoring_texts

SOURCE = "def f(values):\n    total = sum(values\n    return total\n"


def test_windows_cover_the_same_span_and_share_the_prefix():
    candidates = suggest(SOURCE, "python")
    assert len(candidates) >= 2
    prefix, windows = scoring_texts(SOURCE, "python", candidates)
    assert prefix.startswith("# python\n") and "def f(values):" in prefix
    spans = {(c.edit.line, c.edit.end_line) for c in candidates}
    first, last = min(s for s, _ in spans), max(e for _, e in spans)
    for c, window in zip(candidates, windows):
        # Each window is that candidate's version of the same original lines.
        assert c.edit.text in window
        lines = window.splitlines()
        assert len(lines) == last - first + 1 + c.source_after.count("\n") - SOURCE.count("\n")


def test_edits_every_candidate_shares_stay_out_of_the_window():
    # Two errors 300 lines apart: every complete fix closes the far 'def' the same way,
    # so only the lines where the candidates differ are scored.
    filler = "".join(f"    step_{i} = compute(values, {i})  # keep the pipeline moving\n" for i in range(300))
    source = SOURCE.replace("    return total\n", filler + "    return total\n") + "def g(x)\n    return x\n"
    candidates = [c for c in suggest(source, "python", work=10**6) if c.fixes_all]
    assert len(candidates) >= 2
    prefix, windows = scoring_texts(source, "python", candidates)
    assert all(len(w.splitlines()) <= 2 for w in windows) and len(prefix.splitlines()) <= 5


def test_rank_orders_by_score_and_passes_the_windows():
    candidates = suggest(SOURCE, "python")
    wanted = next(c for c in candidates if "sum(values)" in c.source_after)
    llm = FakeLLM(scorer=lambda prompt, text: 0.0 if "sum(values)\n" in text else -5.0 - len(text))
    ranked = rank(llm, SOURCE, "python", candidates)
    assert ranked[0][0] is wanted
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)
    assert len(ranked) == len(candidates)


def test_backend_without_scoring_raises():
    with pytest.raises(ScoringUnsupported):
        rank(FakeLLM(), SOURCE, "python", suggest(SOURCE, "python"))


def test_no_candidates_no_call():
    llm = FakeLLM()
    assert rank(llm, SOURCE, "python", []) == [] and llm.prompts == []


def test_on_a_long_line_only_the_text_around_the_difference_is_scored():
    from tinycode.engine.candidates import Candidate
    from tinycode.engine.edits import Edit
    from tinycode.engine.rank import AROUND_AFTER, AROUND_BEFORE, scoring_texts

    page = "<p>" + "word " * 2000 + "<b>x</b>" + " word" * 2000 + "</p>\n"
    first, second = page.replace("<b>x", "<b>y"), page.replace("<b>x", "<b>z")
    candidates = [Candidate(Edit(1, 1, [text.rstrip("\n")], "edit"), 0, text) for text in (first, second)]
    prefix, windows = scoring_texts(page, "html", candidates)
    assert len(prefix) <= AROUND_BEFORE + 20 and prefix.endswith("word <b>")
    assert windows[0].startswith("y</b>") and windows[1].startswith("z</b>")
    assert all(len(w) <= AROUND_AFTER + 5 for w in windows)


def test_edits_at_distant_places_are_scored_at_each_place_against_the_files_own_lines():
    from tinycode.engine.candidates import Candidate
    from tinycode.engine.edits import Edit

    middle = "".join(f"    step_{i} = compute(values, {i})\n" for i in range(80))
    source = "def f(values):\n    total = sum(values\n" + middle + "    retrun total\n"
    near = source.replace("sum(values\n", "sum(values)\n")
    far = source.replace("retrun total", "return total")
    candidates = [Candidate(Edit(2, 1, ["    total = sum(values)"], "line 2: insert ')'"), 1, near),
                  Candidate(Edit(83, 1, ["    return total"], "line 83: respell"), 1, far)]
    # Each window is a few lines of one place, never the 80 lines between them.
    llm = FakeLLM(scorer=lambda prompt, text: -len(text) / 10 + (5.0 if "return total" in text else 0.0))
    ranked = rank(llm, source, "python", candidates)
    assert len(llm.prompts) == 2 and all(len(prompt.splitlines()) <= 6 for prompt in llm.prompts)
    # Each candidate's score is its gain over the file's own lines at its place.
    assert ranked[0][0] is candidates[1] and ranked[0][1] == pytest.approx(5.0)
    assert ranked[1][1] == pytest.approx(-0.1)


def test_a_change_every_candidate_makes_alike_is_not_scored_and_the_others_add_up():
    from tinycode.engine.candidates import Candidate
    from tinycode.engine.edits import Edit
    from tinycode.engine.rank import scoring_passes

    middle = "".join(f"    step_{i} = compute(values, {i})\n" for i in range(40))
    source = "def f(values):\n    total = sum(values\n" + middle + "    retrun total\n" + middle + "    x = ~1\n"
    shared = source.replace("~1", "1")
    first = shared.replace("sum(values\n", "sum(values)\n")
    second = shared.replace("retrun total", "return total")
    candidates = [Candidate(Edit(2, 1, ["x"], "a"), 0, first), Candidate(Edit(43, 1, ["x"], "b"), 0, second)]
    passes = scoring_passes(source, "python", candidates)
    # Two places scored, each against the file's own lines; the '~' both delete is not.
    assert [p.members for p in passes] == [[(0,)], [(1,)]] and all(p.baseline for p in passes)
    assert not any("~" in w for p in passes for w in p.windows)
    llm = FakeLLM(scorer=lambda prompt, text: 2.0 if "return total" in text else 0.0)
    assert rank(llm, source, "python", candidates)[0][0] is candidates[1]
