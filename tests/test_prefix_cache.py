"""Saved KV states of prompt prefixes: kept across instances on disk, keyed by model
identity and tokens, and a damaged or unwritable cache is only a miss."""

from __future__ import annotations

from tinycode.llm import prefix_cache
from tinycode.llm.prefix_cache import PrefixStates, cache_dir


def test_a_state_saved_by_one_run_is_found_by_the_next(tinycode_home):
    PrefixStates("model-a").put([1, 2, 3], b"state bytes")
    assert (tinycode_home / "kv-cache").is_dir()
    later = PrefixStates("model-a")
    assert later.get([1, 2, 3]) == b"state bytes"
    assert later.get([1, 2, 4]) is None
    assert PrefixStates("model-b").get([1, 2, 3]) is None  # another model, another key


def test_a_damaged_or_truncated_file_is_a_miss():
    PrefixStates("m").put([7], b"x" * 1000)
    (path,) = cache_dir().glob("*.kv")
    blob = path.read_bytes()
    path.write_bytes(blob[:-1] + b"y")
    assert PrefixStates("m").get([7]) is None
    path.write_bytes(blob[:20])
    assert PrefixStates("m").get([7]) is None
    path.write_bytes(blob)
    assert PrefixStates("m").get([7]) == b"x" * 1000


def test_forget_removes_a_state_everywhere():
    states = PrefixStates("m")
    states.put([1], b"old build")
    states.forget([1])
    assert states.get([1]) is None and not list(cache_dir().glob("*.kv"))


def test_the_cache_keeps_only_the_most_recent_files(monkeypatch):
    monkeypatch.setattr(prefix_cache, "MAX_FILES", 3)
    states = PrefixStates("m")
    for n in range(6):
        states.put([n], bytes([n]))
    assert len(list(cache_dir().glob("*.kv"))) == 3
    assert len(states._memory) == prefix_cache.MAX_IN_MEMORY


def test_an_unwritable_cache_is_only_slower(tinycode_home, monkeypatch):
    blocker = tinycode_home / "not-a-directory"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("TINYCODE_HOME", str(blocker))
    states = PrefixStates("m")
    states.put([1], b"kept in memory")
    assert states.get([1]) == b"kept in memory"
    assert PrefixStates("m").get([1]) is None
