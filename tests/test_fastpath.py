from __future__ import annotations

from tinycode.check import check
from tinycode.engine.fastpath import try_fast_repair
from fake_llm import FakeLLM

SEVERAL = "def f(values):\n    total = sum(values\n    return total\n"


class _Never:
    """A model that must not be used (a lazy one would load on first use)."""

    def __getattr__(self, name):
        raise AssertionError("the model must not be loaded")


_never = _Never()


def test_nothing_to_do_without_complete_fixes():
    source = "this is not python at all (\n"
    assert try_fast_repair(source, "python", check(source, "python"), _never) is None


def test_a_single_complete_fix_needs_no_model():
    source = "    import os\n"
    fast = try_fast_repair(source, "python", None, _never)
    assert fast is not None and not fast.scored and fast.source_after == "import os\n"


def test_the_model_chooses_among_several():
    llm = FakeLLM(scorer=lambda prompt, text: 0.0 if "sum(values)\n" in text else -9.0)
    fast = try_fast_repair(SEVERAL, "python", None, llm)
    assert fast is not None and fast.scored and fast.alternatives >= 1
    assert "total = sum(values)\n" in fast.source_after and check(fast.source_after, "python").ok
    assert fast.margin == 9.0 and fast.prompt_tokens > 0


def test_a_fix_the_caller_refuses_does_not_hide_one_it_accepts():
    # The model's favourite is refused (as the locality guard refuses a far edit):
    # the choice falls to the others, not to nothing.
    llm = FakeLLM(scorer=lambda prompt, text: 0.0 if "sum(values)\n" in text else -9.0)
    fast = try_fast_repair(SEVERAL, "python", None, llm, keep=lambda c: "sum(values)\n" not in c.source_after)
    assert fast is not None and check(fast.source_after, "python").ok
    assert "sum(values)\n" not in fast.source_after


def test_backend_without_scoring_never_picks_blindly():
    # Several verified fixes and no likelihoods: the rewrite or the agent decides.
    assert try_fast_repair(SEVERAL, "python", None, FakeLLM()) is None


def test_ranking_stops_at_the_scored_token_budget(monkeypatch):
    import tinycode.engine.fastpath as fastpath

    offered: list[int] = []
    llm = FakeLLM(scorer=lambda prompt, text: offered.append(1) or -float(len(text)))
    monkeypatch.setattr(fastpath, "MAX_SCORED_TOKENS", None)
    assert try_fast_repair(SEVERAL, "python", None, llm) is not None
    everything = len(offered)
    assert everything > 2
    offered.clear()
    monkeypatch.setattr(fastpath, "MAX_SCORED_TOKENS", 1)  # two are always kept
    fast = try_fast_repair(SEVERAL, "python", None, llm)
    assert len(offered) == 2 and fast is not None and fast.alternatives == 1


def test_two_windows_too_long_to_score_leave_the_choice_to_the_search_s_order(monkeypatch):
    # (candidates that differ at columns far apart on a line thousands of characters long)
    import tinycode.engine.fastpath as fastpath

    scored: list[str] = []
    counting = FakeLLM(scorer=lambda prompt, text: scored.append(text) or 0.0)
    monkeypatch.setattr(fastpath, "MAX_PAIR_TOKENS", 1)
    found = try_fast_repair(SEVERAL, "python", None, counting)
    assert found is not None and not found.scored and found.alternatives >= 1 and not scored
    monkeypatch.setattr(fastpath, "MAX_PAIR_TOKENS", 10_000)
    assert "sum(values)\n" in found.source_after  # the search's first
    # Where the pair is affordable, the model decides.
    llm = FakeLLM(scorer=lambda prompt, text: -9.0 if "sum(values)\n" in text else 0.0)
    assert "sum(values)\n" not in try_fast_repair(SEVERAL, "python", None, llm).source_after


def _php_class(body_line: str) -> str:
    methods = [f"  public function get{n}() {{\n    return $this->pb->get{n}();\n  }}\n" for n in range(30)]
    methods[15] = f"  public function getTime() {{\n{body_line}\n  }}\n"
    return "<?php\nclass Timer {\n" + "".join(methods) + "}\n"


def test_a_fix_far_more_at_home_in_the_file_needs_no_model(tree_sitter_only):
    # `;`, `.` and `->` all parse; only `->` puts the tokens among neighbours the
    # file has them among, by a wide lead: no scoring pass.
    source = _php_class("    return $this->pb getTime();")
    fast = try_fast_repair(source, "php", None, _never)
    assert fast is not None and not fast.scored and fast.alternatives >= 1
    assert fast.source_after == _php_class("    return $this->pb->getTime();")


def test_without_a_clear_lead_the_model_still_chooses():
    # A 3-line snippet has no habits to go by: the model is asked.
    llm = FakeLLM(scorer=lambda prompt, text: 0.0 if "sum(values)\n" in text else -9.0)
    fast = try_fast_repair(SEVERAL, "python", None, llm)
    assert fast is not None and fast.scored


def test_of_partial_repairs_the_one_the_judge_reads_furthest_after_comes_first(monkeypatch):
    # A quote put at a line's end leaves fewer problems, but bash stops 13 lines down;
    # ``ten`` made ``then`` lets it read on to the next mistake, 140 lines further.
    from tinycode.engine import fastpath
    from tinycode.engine.candidates import Candidate
    from tinycode.engine.edits import Edit

    source = "if [ \"$x\" != 1 ]; ten\n  echo a\nfi\n"
    quote = Candidate(Edit(1, 1, ["if [ \"$x\" != 1 ]; ten'"], "line 1: insert \"'\" at the end"), 2, "quoted", reach=66)
    then = Candidate(Edit(1, 1, ["if [ \"$x\" != 1 ]; then"], "line 1: respell 'ten' as 'then'"), 3, "then", reach=179)
    monkeypatch.setattr(fastpath, "suggest", lambda *args, **kwargs: [quote, then])
    chosen = fastpath.try_fast_repair(source, "bash", check(source, "bash"), FakeLLM([]), partial=True)
    assert chosen is not None and chosen.candidate is then


def test_a_deletion_leads_on_familiarity_only_on_even_terms_with_an_edit_that_types_a_token():
    # A deletion leaves one trigram fewer than an insertion: its lead over one counts one less.
    from tinycode.engine.candidates import Candidate
    from tinycode.engine.edits import Edit
    from tinycode.engine.fastpath import _familiar_lead

    source = "begin\n  work\n=> ex\n  log ex\nend\n"

    def candidate(after: str, unfamiliar: int) -> Candidate:
        return Candidate(Edit(3, 1, [after.split("\n")[2]]), 0, after, unfamiliar)
    deleted = candidate(source.replace("=> ex", " ex"), -1)
    inserted = candidate(source.replace("=> ex", "rescue => ex"), 1)
    joined = candidate(source.replace("  work\n=> ex", "  work => ex"), 1)
    assert not _familiar_lead([deleted, inserted], source)
    assert _familiar_lead([deleted, joined], source)  # (a join types nothing either)
    assert _familiar_lead([candidate(source.replace("=> ex", " ex"), -2), inserted], source)
    assert _familiar_lead([inserted, candidate(source.replace("=> ex", " ex"), 3)], source)
