"""The second corruptor's slips of layout, asked for by name."""

from __future__ import annotations

import random

from tools import corrupt_real

YAML = "server:\n  host: example.org\n  ports:\n    - 80\n    - 443\n"
TOML = '[tool]\n"line-length" = 88\nname = "x"\n'


def test_layout_slips_change_only_the_indentation_or_the_key_s_quotes():
    rng = random.Random(3)
    lines = YAML.splitlines()
    n, (shifted,) = corrupt_real.indentation_shifted(lines, "yaml", rng)
    assert shifted.strip() == lines[n].strip() and shifted != lines[n]
    n, (tabbed,) = corrupt_real.tab_in_indentation(lines, "yaml", rng)
    assert tabbed == "\t" + lines[n].lstrip(" ")
    assert corrupt_real.key_unquoted(TOML.splitlines(), "toml", rng) == (1, ["line-length = 88"])


def test_layout_slips_are_made_only_on_request():
    assert not set(corrupt_real.LAYOUT_KINDS) & set(corrupt_real.KINDS)
    assert set(corrupt_real.LAYOUT_KINDS) <= set(corrupt_real.ALL_KINDS)
