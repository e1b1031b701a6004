"""The language server, driven over stdio by pytest-lsp's client as an editor drives it.

The server runs with the scripted model of the tests (``lsp_fake_server.py``), so these
need no real model; ``test_lsp_real_model.py`` has the one with the default model."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest.importorskip("pytest_lsp")
pytest_asyncio = pytest.importorskip("pytest_asyncio")

from lsprotocol import types  # noqa: E402
from pygls.exceptions import JsonRpcException  # noqa: E402
from pytest_lsp import client_capabilities  # noqa: E402

from tinycode import check  # noqa: E402
from tinycode.lsp.positions import UTF16, apply_edits, problem_range, split_lines  # noqa: E402

from lsp_client import (NO_MODEL, NO_MODEL_FIXED, RANKED, change_document, code_action_params,  # noqa: E402
                        diagnostics, edits_of, logged, open_document, repair_actions, start)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()  # the configuration search stops here
    return tmp_path


@pytest_asyncio.fixture
async def client(workspace: Path):
    client = await start(workspace)
    yield client
    await client.shutdown_session()
    await client.stop()


@pytest_asyncio.fixture
async def slow_client(workspace: Path):
    """A server whose model takes 3 s for each scoring pass."""
    client = await start(workspace, FAKE_SCORE_SECONDS="3")
    yield client
    await client.shutdown_session()
    await client.stop()


@pytest.mark.asyncio
async def test_a_broken_file_gets_the_diagnostics_of_check(client, workspace):
    uri = open_document(client, workspace / "main.py", NO_MODEL)
    found = await diagnostics(client, uri, 1)
    expected = check(NO_MODEL, "python").problems
    assert [d.message for d in found] == [p.message for p in expected] == ["SyntaxError: expected ':'"]
    assert found[0].range == problem_range(expected[0], split_lines(NO_MODEL), UTF16)
    assert found[0].range.start.line == 3 and found[0].source == "tinycode"
    assert found[0].severity == types.DiagnosticSeverity.Error


@pytest.mark.asyncio
async def test_the_quick_fix_is_the_smallest_edit_and_leaves_a_clean_document(client, workspace):
    uri, found, actions = await repair_actions(client, workspace / "main.py", NO_MODEL)
    titles = [a.title for a in actions]
    assert titles == ["Repair with tinycode", "Repair whole file with tinycode"]
    assert actions[0].edit is None  # Neovim resolves the edit when it applies the action
    action = await client.code_action_resolve_async(actions[0])
    edits = edits_of(action)
    assert [(e.range.start.line, e.range.start.character, e.range.end.character, e.new_text) for e in edits] \
        == [(3, 14, 14, ":")]
    assert list(action.edit.changes) == [uri]  # Neovim 0.7 takes no versioned documentChanges
    fixed = apply_edits(NO_MODEL, edits, UTF16)
    assert fixed == NO_MODEL_FIXED
    assert (workspace / "main.py").read_text(encoding="utf-8") == NO_MODEL  # nothing written
    change_document(client, uri, 2, fixed)
    assert await diagnostics(client, uri, 2) == []


@pytest.mark.asyncio
async def test_a_client_that_cannot_resolve_gets_the_edits_with_the_actions(workspace):
    capabilities = client_capabilities("neovim@v0.7.0")
    capabilities.text_document.code_action.resolve_support = None
    client = await start(workspace, capabilities)
    try:
        text = NO_MODEL + "\n\nclass Box\n    pass\n"
        uri = open_document(client, workspace / "two.py", text)
        await diagnostics(client, uri, 1)
        actions = await client.text_document_code_action_async(
            code_action_params(uri, [], only=[types.CodeActionKind.Source]))
        assert [a.title for a in actions] == ["Repair whole file with tinycode"]
        fixed = apply_edits(text, edits_of(actions[0]), UTF16)
        assert fixed == NO_MODEL_FIXED + "\n\nclass Box:\n    pass\n"
        assert len(edits_of(actions[0])) == 2
    finally:
        await client.shutdown_session()
        await client.stop()


@pytest.mark.asyncio
async def test_a_repair_for_an_older_version_is_dropped(slow_client, workspace):
    client = slow_client
    uri, found, actions = await repair_actions(client, workspace / "top.py", RANKED)
    pending = asyncio.ensure_future(client.code_action_resolve_async(actions[0]))
    await asyncio.sleep(1.0)  # the repair is waiting for the model's scores
    assert not pending.done()
    change_document(client, uri, 2, RANKED + "\n# typed meanwhile\n")
    action = await asyncio.wait_for(pending, 20)
    assert action.edit is None
    await logged(client, lambda m: "dropped a repair computed for version 1" in m)


@pytest.mark.asyncio
async def test_a_cancelled_repair_stops_and_the_server_goes_on(slow_client, workspace):
    client = slow_client
    uri, found, actions = await repair_actions(client, workspace / "top.py", RANKED)
    future = client.protocol.send_request(types.CODE_ACTION_RESOLVE, actions[0], msg_id="repair-1")
    await asyncio.sleep(1.0)
    started = time.monotonic()
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="repair-1"))
    with pytest.raises(JsonRpcException) as cancelled:
        await asyncio.wait_for(asyncio.wrap_future(future), 10)
    assert cancelled.value.code == types.LSPErrorCodes.RequestCancelled
    assert time.monotonic() - started < 1.0
    # The cancelled repair stops at its next check, so the next one starts at once.
    other, found, actions = await repair_actions(client, workspace / "main.py", NO_MODEL)
    started = time.monotonic()
    action = await client.code_action_resolve_async(actions[0])
    assert apply_edits(NO_MODEL, edits_of(action), UTF16) == NO_MODEL_FIXED
    assert time.monotonic() - started < 2.5  # not behind the rest of a 3 s scoring pass
    await logged(client, lambda m: "repair cancelled" in m)


@pytest.mark.asyncio
async def test_slow_repairs_show_progress(slow_client, workspace):
    client = slow_client
    uri, found, actions = await repair_actions(client, workspace / "top.py", RANKED)
    action = await asyncio.wait_for(client.code_action_resolve_async(actions[0]), 30)
    assert check(apply_edits(RANKED, edits_of(action), UTF16), "python").ok
    (reports,) = client.progress_reports.values()
    assert reports[0].kind == "begin" and reports[0].title == "Repairing top.py"
    assert reports[-1].kind == "end"


@pytest.mark.asyncio
async def test_bad_input_gets_a_log_line_and_the_server_goes_on(client, workspace):
    unknown = open_document(client, workspace / "notes.xyz", "a ( b", language="xyz")
    assert await diagnostics(client, unknown, 1) == []
    # A position in the middle of an emoji's surrogate pair, and one past the last line.
    text = 'name = "😋"\nprint(name\n'
    uri = open_document(client, workspace / "emoji.py", text)
    found = await diagnostics(client, uri, 1)
    for position in (types.Position(0, 9), types.Position(40, 0)):
        params = code_action_params(uri, found)
        params.range = types.Range(position, position)
        assert not await client.text_document_code_action_async(params)
    huge = "x = 1\n" * (50 * 1024 * 1024 // 6)
    big = open_document(client, workspace / "big.py", huge)
    assert await diagnostics(client, big, 1, timeout=60) == []
    await logged(client, lambda m: "notes.xyz: no diagnostics: unknown language" in m)
    await logged(client, lambda m: "splits a surrogate pair" in m)
    await logged(client, lambda m: "past the last line" in m)
    await logged(client, lambda m: "big.py: no diagnostics:" in m and "max-check-size" in m)
    # Still answering, with ranges in UTF-16 units: the emoji counts 2.
    assert found[0].range.start == types.Position(1, 5)
    second = 'name = "😋"; print(name\n'
    change_document(client, uri, 2, second)
    (again,) = await diagnostics(client, uri, 2)
    assert again.range.start.character == second.index("(") + 1  # the emoji is 2 units


@pytest.mark.asyncio
async def test_a_client_gone_mid_repair_ends_the_server_cleanly(workspace, capfd):
    client = await start(workspace, FAKE_SCORE_SECONDS="30")
    uri, found, actions = await repair_actions(client, workspace / "top.py", RANKED)
    client.protocol.send_request(types.CODE_ACTION_RESOLVE, actions[0])
    await asyncio.sleep(1.0)
    server = client._server
    server.stdin.close()  # the editor crashed
    await asyncio.wait_for(server.wait(), 15)
    await asyncio.sleep(0.2)
    err = capfd.readouterr().err
    assert "the client went away without asking the server to shut down" in err
    assert "top.py v1: repair cancelled" in err
    assert "Traceback" not in err
    client._stop_event.set()
    await client.stop()


@pytest.mark.asyncio
async def test_project_settings_and_trust_rules_apply(workspace):
    (workspace / "pyproject.toml").write_text(
        '[tool.tinycode]\nexclude = ["generated"]\nbackend = "openai"\nbase-url = "http://127.0.0.1:9"\n',
        encoding="utf-8")
    (workspace / "generated").mkdir()
    client = await start(workspace)
    try:
        skipped = open_document(client, workspace / "generated" / "a.py", NO_MODEL)
        assert await diagnostics(client, skipped, 1) == []
        uri = open_document(client, workspace / "main.py", NO_MODEL)
        found = await diagnostics(client, uri, 1)
        assert len(found) == 1
        await logged(client, lambda m: "ignored base-url" in m and "untrusted project" in m)
        await logged(client, lambda m: "a.py: no diagnostics: excluded by" in m)
    finally:
        await client.shutdown_session()
        await client.stop()


@pytest.mark.asyncio
async def test_the_quick_fix_of_one_problem_leaves_the_other_alone(client, workspace):
    between = "".join(f"\n\ndef f{n}():\n    return {n}\n" for n in range(5))
    text = f"import sys\n\nprint(sys.argv))\n{between}\n\nprint(sys.path))\n"
    uri, found, actions = await repair_actions(client, workspace / "two.py", text)
    assert [d.range.start.line for d in found] == [2, 25]
    quick = [a for a in actions if a.title == "Repair with tinycode"]
    assert [a.diagnostics[0].range.start.line for a in quick] == [2, 25]
    second = edits_of(await client.code_action_resolve_async(quick[1]))
    assert [(e.range.start.line, e.range.start.character, e.new_text) for e in second] == [(25, 15, "")]
    whole = edits_of(await client.code_action_resolve_async(actions[-1]))
    assert check(apply_edits(text, whole, UTF16), "python").ok and len(whole) == 2


@pytest.mark.asyncio
async def test_a_bad_configuration_is_said_and_the_server_answers(workspace):
    (workspace / "pyproject.toml").write_text("[tool.tinycode]\nmax-steps = 'many'\n", encoding="utf-8")
    client = await start(workspace)
    try:
        uri = open_document(client, workspace / "main.py", NO_MODEL)
        assert await diagnostics(client, uri, 1) == []
        await logged(client, lambda m: "configuration:" in m and "max-steps" in m)
        await logged(client, lambda m: "main.py: no diagnostics:" in m and "max-steps" in m)
    finally:
        await client.shutdown_session()
        await client.stop()
