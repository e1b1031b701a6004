"""Ranking and the fast path with the real default model. Marked `model`; CI runs them."""

from __future__ import annotations

import pytest

from tinycode.engine.candidates import suggest
from tinycode.engine.fastpath import try_fast_repair
from tinycode.engine.rank import rank

pytestmark = pytest.mark.model


def test_the_model_prefers_the_natural_fix(real_llm):
    source = "def f(values):\n    total = sum(values\n    return total\n"
    ranked = rank(real_llm, source, "python", suggest(source, "python"))
    assert "total = sum(values)\n" in ranked[0][0].source_after
    assert ranked[0][1] - ranked[1][1] > 3.0


def test_fast_path_repairs_an_assignment_in_a_condition(real_llm):
    source = "x = 2\nif x = 1:\n    print(x)\n"
    fast = try_fast_repair(source, "python", None, real_llm)
    assert fast is not None and fast.scored
    assert fast.source_after == "x = 2\nif x == 1:\n    print(x)\n"
    assert fast.prompt_tokens > 0  # its speed is the benchmark's business (tools/bench.py)
