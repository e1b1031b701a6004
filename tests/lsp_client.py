"""The tests' language client: pytest-lsp's, which also remembers the version of each
document's last diagnostics, and the steps the language-server tests share."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Callable

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, publish_diagnostics, register_lsp_features

ROOT = Path(__file__).resolve().parent.parent
FAKE_SERVER = Path(__file__).resolve().parent / "lsp_fake_server.py"

# A repair with no choice to make: the model is never asked.
NO_MODEL = "import sys\n\n\ndef main(argv)\n    print(argv)\n    return 0\n"
NO_MODEL_FIXED = NO_MODEL.replace("def main(argv)", "def main(argv):")
# Several verified candidates: the model ranks them.
RANKED = "def top(path, n=10):\n    counts = Counter(words(path)\n    return counts.most_common(n)\n"


def server_env(**extra: str) -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return {**os.environ, "PYTHONPATH": path, **extra}


async def start(workspace: Path, capabilities: types.ClientCapabilities | None = None,
                command: list[str] | None = None, **env: str) -> LanguageClient:
    config = ClientServerConfig(server_command=command or [sys.executable, str(FAKE_SERVER)],
                                server_env=server_env(**env), client_factory=_client)
    client = await config.start()
    await client.initialize_session(types.InitializeParams(
        capabilities=capabilities or client_capabilities("neovim@v0.7.0"),
        root_uri=workspace.as_uri(), workspace_folders=[types.WorkspaceFolder(workspace.as_uri(), "w")]))
    return client


def open_document(client: LanguageClient, path: Path, text: str, language: str = "python") -> str:
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))
    return uri


def change_document(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangeWholeDocument(text=text)]))


async def diagnostics(client: LanguageClient, uri: str, version: int,
                      timeout: float = 10) -> list[types.Diagnostic]:
    """The diagnostics the server publishes for ``version`` of ``uri``."""
    end = time.monotonic() + timeout
    while True:
        published = client.diagnostics.get(uri)
        if published is not None and client.diagnostic_versions.get(uri) == version:
            return list(published)
        if time.monotonic() > end:
            raise AssertionError(f"no diagnostics for version {version} of {uri}")
        await asyncio.sleep(0.02)


def code_action_params(uri: str, found: list[types.Diagnostic], only: list[str] | None = None
                       ) -> types.CodeActionParams:
    where = found[0].range if found else types.Range(types.Position(0, 0), types.Position(0, 0))
    return types.CodeActionParams(types.TextDocumentIdentifier(uri), where,
                                  types.CodeActionContext(diagnostics=found, only=only))


def edits_of(action: types.CodeAction) -> list[types.TextEdit]:
    assert action.edit is not None, action
    if action.edit.document_changes:
        (change,) = action.edit.document_changes
        return list(change.edits)
    return [edit for edits in action.edit.changes.values() for edit in edits]




def _client() -> LanguageClient:
    client = LanguageClient(converter_factory=default_converter)
    client.diagnostic_versions = {}
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _published})
    return client


def _published(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostic_versions[params.uri] = params.version
    publish_diagnostics(client, params)


async def repair_actions(client: LanguageClient, path: Path, text: str
                         ) -> tuple[str, list[types.Diagnostic], list[types.CodeAction]]:
    """Open ``text`` as ``path``: its uri, its first diagnostics and the actions for them."""
    uri = open_document(client, path, text)
    found = await diagnostics(client, uri, 1)
    actions = await client.text_document_code_action_async(code_action_params(uri, found))
    return uri, found, list(actions)


async def logged(client: LanguageClient, wanted: Callable[[str], bool], timeout: float = 5) -> str:
    """The first line of the server's log that is ``wanted``, waiting for it to come."""
    end = time.monotonic() + timeout
    while True:
        for message in client.log_messages:
            if wanted(message.message):
                return message.message
        if time.monotonic() > end:
            raise AssertionError(f"not in the log: {[m.message for m in client.log_messages]}")
        await asyncio.sleep(0.02)
