"""The language server with the real default model: its quick fix for an error with
several verified candidates, which the model ranks. Marked ``model``; CI runs it."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("pygls")
pytest.importorskip("pytest_lsp")

from tinycode import check  # noqa: E402
from tinycode.lsp.positions import UTF16, apply_edits  # noqa: E402

from lsp_client import RANKED, change_document, diagnostics, edits_of, repair_actions, start  # noqa: E402

pytestmark = pytest.mark.model


@pytest.mark.asyncio
async def test_the_quick_fix_with_the_default_model(model_path, tmp_path):
    (tmp_path / ".git").mkdir()
    client = await start(tmp_path, command=[sys.executable, "-m", "tinycode", "lsp", "--offline",
                                            "--model", str(model_path)])
    try:
        uri, _, actions = await repair_actions(client, tmp_path / "top.py", RANKED)
        action = await client.code_action_resolve_async(actions[0])
        fixed = apply_edits(RANKED, edits_of(action), UTF16)
        assert check(fixed, "python").ok
        assert len(edits_of(action)) == 1 and len(edits_of(action)[0].new_text) <= 2
        change_document(client, uri, 2, fixed)
        assert await diagnostics(client, uri, 2) == []
    finally:
        await client.shutdown_session()
        await client.stop()
