"""``tinycode lsp``: a language server over stdio (pygls), for any editor with a client.

Diagnostics are ``check``'s problems, with its messages and its rules: on each change,
debounced, from tree-sitter and the judges that run in process (CPython, json, PyYAML,
tomllib); when the file is opened or saved, or the user pauses, from the language's own
tool too. Each file gets the configuration nearest to it, with the CLI's trust rules.

Code actions: "Repair with tinycode" on each diagnostic, and "Repair whole file", whose
edits are the smallest TextEdits between the document and the loop's verified repair.
The server writes nothing to disk: the editor applies the edits. A repair computed for
a version of the document that is no longer current is dropped (the action comes back
without an edit), and where the client takes versioned edits they name the version
they apply to, so the client refuses them too.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import judges, languages
from ..config import RunSettings
from ..check import CheckResult, check
from ..engine.verifier import Verifier
from ..errors import TinycodeError
from ..version import __version__
from .positions import UTF16, apply_edits, invalid_position, problem_range, split_lines, text_edits
from .repairs import Repairs

if TYPE_CHECKING:
    from ..config import Settings

log = logging.getLogger("tinycode.lsp")

# Seconds after the last change before the check: a burst of keystrokes is one check.
# With it, a 2,000-line file's diagnostics came a median 75-80 ms after a change on a
# busy 2-core machine (tools/lsp_speed.py).
DEBOUNCE = 0.05
# Seconds of quiet after a change before the language's own tool checks the file.
IDLE = 1.0
# A repair that takes longer than this shows progress in the editor.
PROGRESS_AFTER = 0.5
SOURCE = "tinycode"
QUICK_FIX_TITLE = "Repair with tinycode"
FILE_TITLE = "Repair whole file with tinycode"
# Not source.fixAll: editors run that kind on every save when asked to (for linters'
# fixes), and a repair is applied only when the user chooses it.
FILE_KIND = "source.repair.tinycode"


@dataclass
class _Document:
    """What the server knows of an open document beyond its text: its language (None:
    unknown), its settings, why it gets no diagnostics, and its pending checks."""

    uri: str
    name: str
    language: str | None
    settings: Settings | None
    path: str | None = None  # the file, for a file: URI (a C or C++ judge reads its project)
    checks: list[asyncio.Task] = field(default_factory=list)
    skipped: str = ""  # why it gets no diagnostics, said once in the log


class TinycodeServer(LanguageServer):
    """The language server; ``overrides``: the settings the command line gave (as
    ``fix`` takes them), applied over each file's configuration."""

    def __init__(self, overrides: Mapping[str, object]) -> None:
        super().__init__("tinycode", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.overrides = dict(overrides)
        self.documents: dict[str, _Document] = {}
        self.repairs: Repairs | None = None
        self._said: set[str] = set()
        self.forget_settings()
        self._check_pool: Any = None
        self.asked_to_stop = False  # a shutdown request came

    # -- settings -----------------------------------------------------------------

    def settings_at(self, folder: str) -> Settings:
        """The configuration nearest ``folder`` (read once; its notes said once)."""
        return self._settings.at(folder)

    def forget_settings(self) -> None:
        """Read the configuration files again when next asked (one was saved)."""
        self._settings = RunSettings(self.overrides, say=lambda note: self.say_once(note, logging.WARNING))

    def say_once(self, message: str, level: int = logging.INFO) -> None:
        """Log ``message``, unless it was logged already."""
        if message not in self._said:
            self._said.add(message)
            log.log(level, "%s", message)

    def start_session(self, root: str) -> None:
        """At ``initialize``: the judges and the model are chosen once, from the
        configuration of the workspace's root (as ``fix`` does from its first path)."""
        from ..judges import configure_from
        from ..llm.loader import model_options

        settings = self.settings_at(root)
        configure_from(settings)
        self.repairs = Repairs(model_options(settings))

    # -- documents ----------------------------------------------------------------

    def document(self, uri: str) -> _Document:
        """The server's record of ``uri``, made on first sight."""
        known = self.documents.get(uri)
        if known is not None:
            return known
        text_document = self.workspace.get_text_document(uri)
        path = to_fs_path(uri) or text_document.path
        name = os.path.basename(path) or uri
        language = languages.detect(path, text_document.source[:200].encode("utf-8", "replace"))
        if language is None and text_document.language_id:
            alias = languages.normalize(text_document.language_id)
            language = alias if languages.is_supported(alias) else None
        document = _Document(uri, name, language, None, to_fs_path(uri) or None)
        if language is None:
            document.skipped = (f"{uri}: no diagnostics: unknown language (languageId "
                                f"{text_document.language_id!r}, and the file name does not tell)")
        else:
            folder = os.path.dirname(os.path.abspath(path)) if to_fs_path(uri) else os.getcwd()
            try:
                document.settings = self.settings_at(folder)
            except TinycodeError as exc:
                document.skipped = f"{uri}: no diagnostics: {exc}"
            else:
                if document.settings.skips(path, language):
                    document.skipped = f"{uri}: no diagnostics: excluded by {document.settings.config_path}"
        self.documents[uri] = document
        return document

    def encoding(self) -> str:
        value = self.workspace.position_encoding
        return str(getattr(value, "value", value) or UTF16)

    # -- diagnostics --------------------------------------------------------------

    def schedule_checks(self, uri: str, *, quick: float | None, full: float | None) -> None:
        """Replace the pending checks of ``uri`` with new ones after these delays
        (None: not that one)."""
        document = self.document(uri)
        for task in document.checks:
            task.cancel()
        document.checks = [asyncio.ensure_future(self._diagnose(uri, delay, tools=kind == "full"))
                           for kind, delay in (("quick", quick), ("full", full)) if delay is not None]

    async def _diagnose(self, uri: str, delay: float, *, tools: bool) -> None:
        if delay:
            await asyncio.sleep(delay)
        if uri not in self.workspace.text_documents:
            return  # closed meanwhile
        document = self.document(uri)
        text_document = self.workspace.get_text_document(uri)
        version, text = text_document.version, text_document.source
        if document.skipped:
            self.say_once(document.skipped)
            self._publish(uri, version, [])
            return
        assert document.language is not None and document.settings is not None
        too_large = _too_large(text, document.settings.max_check_size, "max-check-size")
        if too_large:
            self.say_once(f"{uri}: no diagnostics: {too_large}", logging.WARNING)
            self._publish(uri, version, [])
            return
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(self._checks(), _check, text, document.language, tools,
                                             document.path)
        if self.workspace.get_text_document(uri).version != version:
            return  # a newer version has its own check coming
        lines = split_lines(text)
        encoding = self.encoding()
        self._publish(uri, version, [_diagnostic(problem, lines, encoding) for problem in result.problems])

    def _publish(self, uri: str, version: int | None, diagnostics: list[types.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version))

    def _checks(self) -> Any:
        """The thread that checks buffers: the event loop keeps answering meanwhile."""
        if self._check_pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._check_pool = ThreadPoolExecutor(1, thread_name_prefix="tinycode-check")
        return self._check_pool

    # -- code actions -------------------------------------------------------------

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        """The repair actions for the diagnostics in ``params`` (their edits are filled
        in by :meth:`resolve`, here or in codeAction/resolve)."""
        uri = params.text_document.uri
        if uri not in self.workspace.text_documents:
            log.warning("%s: codeAction for a document that is not open: no actions", uri)
            return []
        text_document = self.workspace.get_text_document(uri)
        lines = split_lines(text_document.source)
        encoding = self.encoding()
        for position in (params.range.start, params.range.end):
            wrong = invalid_position(lines, position, encoding)
            if wrong:
                log.warning("%s: codeAction with an invalid range (%s): no actions", uri, wrong)
                return []
        document = self.document(uri)
        if document.skipped:
            self.say_once(document.skipped)
            return []
        only = params.context.only
        wanted = (lambda kind: only is None or any(kind == k or kind.startswith(f"{k}.") for k in only))
        version = text_document.version
        actions = []
        if wanted(types.CodeActionKind.QuickFix):
            for diagnostic in params.context.diagnostics:
                if diagnostic.source != SOURCE:
                    continue
                actions.append(types.CodeAction(
                    title=QUICK_FIX_TITLE, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                    data={"uri": uri, "version": version, "line": diagnostic.range.start.line}))
        if wanted(FILE_KIND) and (actions or only is not None):
            actions.append(types.CodeAction(title=FILE_TITLE, kind=FILE_KIND,
                                            data={"uri": uri, "version": version, "line": None}))
        return actions

    def resolves_edits(self) -> bool:
        """True when the client asks for an action's edit only when it applies it."""
        capabilities = self.client_capabilities.text_document
        code_action = capabilities.code_action if capabilities is not None else None
        support = code_action.resolve_support if code_action is not None else None
        return support is not None and "edit" in support.properties

    async def resolve(self, action: types.CodeAction,
                      token: types.ProgressToken | None = None) -> types.CodeAction:
        """``action`` with its edit: the loop's verified repair of the document as it is
        now, or no edit when there is none (said in the log and to the user)."""
        data = action.data if isinstance(action.data, dict) else {}
        uri, version, line = data.get("uri"), data.get("version"), data.get("line")
        if not isinstance(uri, str) or uri not in self.workspace.text_documents:
            log.warning("codeAction/resolve for a document that is not open: %r", uri)
            return action
        text_document = self.workspace.get_text_document(uri)
        if text_document.version != version:
            log.info("%s: dropped a repair action for version %s: the document is at version %s",
                     uri, version, text_document.version)
            return action
        document = self.document(uri)
        if document.skipped or document.language is None or document.settings is None:
            return action
        text = text_document.source
        too_large = _too_large(text, document.settings.max_file_size, "max-file-size")
        if too_large:
            self._tell(f"tinycode: {document.name}: not repaired: {too_large}", types.MessageType.Warning)
            return action
        result = await self._repaired(document, text, version, token)
        current = self.workspace.get_text_document(uri).version if uri in self.workspace.text_documents else None
        if current != version:
            log.info("%s: dropped a repair computed for version %s: the document is now at version %s",
                     uri, version, current)
            return action
        if result.status != "fixed":
            self._tell(f"tinycode: {document.name}: no repair found ({result.reason or result.status})",
                       types.MessageType.Warning)
            return action
        edits = await asyncio.get_running_loop().run_in_executor(
            self._checks(), _repair_edits, text, result.source, line if isinstance(line, int) else None,
            document, self.encoding())
        action.edit = self._workspace_edit(uri, version, edits)
        if result.verified_by == "tree-sitter":
            self._tell(f"tinycode: {document.name}: repair checked by tree-sitter only "
                       f"(no judge of {document.language} is installed)", types.MessageType.Info)
        return action

    async def _repaired(self, document: _Document, text: str, version: int,
                        token: types.ProgressToken | None) -> Any:
        """The repair of ``text``, waited for here; progress shows after a moment; a
        cancelled request cancels it (unless another request still waits for it)."""
        assert self.repairs is not None and document.language is not None and document.settings is not None
        loop = asyncio.get_running_loop()
        progress: list[types.ProgressToken] = []

        def on_step(step: Any) -> None:  # in the repair's thread
            if progress:
                loop.call_soon_threadsafe(self._report, progress[0], step)

        job = self.repairs.start(text, document.language, document.settings,
                                 f"{document.uri} v{version}", on_step, document.path)
        finished = False
        try:
            waiting = asyncio.shield(asyncio.wrap_future(job.future))
            done, _ = await asyncio.wait({waiting}, timeout=PROGRESS_AFTER)
            if not done:
                progress.extend(await self._begin_progress(token, f"Repairing {document.name}"))
            result = await waiting
            finished = True
            return result
        except asyncio.CancelledError:
            log.info("%s v%s: the request for its repair was cancelled", document.uri, version)
            raise
        finally:
            self.repairs.release(job, cancel=not finished)
            if progress:
                self.work_done_progress.end(progress[0], types.WorkDoneProgressEnd())

    async def _begin_progress(self, token: types.ProgressToken | None, title: str) -> list[types.ProgressToken]:
        """A progress token begun with ``title``: the client's own, else one the server
        creates when the client supports it; [] when there is none."""
        if token is None:
            window = self.client_capabilities.window
            if window is None or not window.work_done_progress:
                return []
            token = str(uuid.uuid4())
            try:
                await asyncio.wait_for(self.work_done_progress.create_async(token), timeout=2)
            except (asyncio.TimeoutError, Exception) as exc:  # noqa: BLE001 - the client refused
                log.info("no progress shown: window/workDoneProgress/create failed: %s", exc)
                return []
        self.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=False))
        return [token]

    def _report(self, token: types.ProgressToken, step: Any) -> None:
        self.work_done_progress.report(token, types.WorkDoneProgressReport(message=step.thought[:80]))

    def _workspace_edit(self, uri: str, version: int, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
        """The edits, tied to ``version`` when the client can be told which version they are for."""
        workspace = self.client_capabilities.workspace
        edit_support = workspace.workspace_edit if workspace is not None else None
        if edit_support is not None and edit_support.document_changes:
            return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=list(edits))])
        return types.WorkspaceEdit(changes={uri: list(edits)})

    def _tell(self, message: str, kind: types.MessageType) -> None:
        log.info("%s", message)
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def stop_work(self, reason: str) -> None:
        """The client went away or asked to stop: pending checks and repairs end."""
        for document in self.documents.values():
            for task in document.checks:
                task.cancel()
        if self.repairs is not None:
            self.repairs.cancel_all(reason)

    def shutdown(self) -> None:
        if not self.asked_to_stop:
            log.warning("the client went away without asking the server to shut down; stopping")
        self.stop_work("the connection to the client ended")
        super().shutdown()
        if self.repairs is not None:
            self.repairs.close()
        if self._check_pool is not None:
            self._check_pool.shutdown(wait=False, cancel_futures=True)


class _ClientLog(logging.Handler):
    """The server's log lines, also sent to the client (``window/logMessage``): editors
    show them in their language-server log. Records from other threads are sent by the
    event loop's thread."""

    _LEVELS = {logging.ERROR: types.MessageType.Error, logging.WARNING: types.MessageType.Warning,
               logging.INFO: types.MessageType.Log}

    def __init__(self, server: TinycodeServer, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(logging.INFO)
        self.server, self.loop = server, loop

    def emit(self, record: logging.LogRecord) -> None:
        kind = self._LEVELS.get(record.levelno, types.MessageType.Log)
        params = types.LogMessageParams(type=kind, message=f"tinycode: {record.getMessage()}")
        try:
            self.loop.call_soon_threadsafe(self.server.window_log_message, params)
        except RuntimeError:  # the loop has closed: stderr has the line
            pass


def _check(text: str, language: str, tools: bool, path: str | None) -> CheckResult:
    """``check`` of the file at ``path`` with the language's own tool (``tools``), or only
    what runs in process."""
    if tools:
        return check(text, language, path)
    with judges.in_process_only():
        return check(text, language, path)


def _too_large(text: str, limit: int, key: str) -> str:
    """Why ``text`` is over ``limit`` bytes (the setting ``key``), or ""."""
    if len(text) <= limit // 4:  # no character takes more than 4 bytes: no need to encode
        return ""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= limit:
        return ""
    from ..config import human_size

    return f"{size:,} bytes is over {key} ({human_size(limit)})"


def _diagnostic(problem: Any, lines: list[str], encoding: str) -> types.Diagnostic:
    return types.Diagnostic(range=problem_range(problem, lines, encoding), message=problem.message,
                            severity=types.DiagnosticSeverity.Error, source=SOURCE, code=problem.source)


def _repair_edits(text: str, repaired: str, line: int | None, document: _Document,
                  encoding: str) -> list[types.TextEdit]:
    """The TextEdits from ``text`` to its repair: all of them, or with ``line`` (0-based)
    those near the problem there, when they alone remove it and add no problem; else
    every edit (the whole verified repair)."""
    edits = text_edits(text, repaired, encoding)
    if line is None:
        return edits
    assert document.language is not None and document.settings is not None
    reach = document.settings.max_problem_distance
    near = [e for e in edits if e.range.start.line - reach <= line <= e.range.end.line + reach]
    if not near or len(near) == len(edits):
        return edits
    before = check(text, document.language, document.path)
    after = check(apply_edits(text, near, encoding), document.language, document.path)
    shift = sum(e.new_text.count("\n") - (e.range.end.line - e.range.start.line) for e in near)
    return near if Verifier(document.language, reach).quick_fix(before, after, line, shift) else edits


def build_server(overrides: Mapping[str, object]) -> TinycodeServer:
    """The server with its features; ``overrides``: the command line's settings."""
    server = TinycodeServer(overrides)

    @server.feature(types.INITIALIZE)
    def initialize(ls: TinycodeServer, params: types.InitializeParams) -> None:
        log.addHandler(_ClientLog(ls, asyncio.get_running_loop()))
        root = to_fs_path(params.root_uri) if params.root_uri else params.root_path
        folders = params.workspace_folders or []
        if not root and folders:
            root = to_fs_path(folders[0].uri)
        try:
            ls.start_session(root or os.getcwd())
        except TinycodeError as exc:
            # A bad configuration: the server still answers; the files under it say why.
            from ..config import Settings
            from ..llm.loader import model_options

            log.error("configuration: %s (the model and the judges take their defaults)", exc)
            ls.repairs = Repairs(model_options(Settings()))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: TinycodeServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.documents.pop(params.text_document.uri, None)
        ls.schedule_checks(params.text_document.uri, quick=None, full=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TinycodeServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule_checks(params.text_document.uri, quick=DEBOUNCE, full=IDLE)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: TinycodeServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri.endswith(("/pyproject.toml", "/config.toml")):
            ls.forget_settings()  # the configuration may have changed: read it again
            ls.documents.clear()
        ls.schedule_checks(uri, quick=None, full=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TinycodeServer, params: types.DidCloseTextDocumentParams) -> None:
        document = ls.documents.pop(params.text_document.uri, None)
        if document is not None:
            for task in document.checks:
                task.cancel()
        ls._publish(params.text_document.uri, None, [])

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FILE_KIND],
        resolve_provider=True))
    async def code_action(ls: TinycodeServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        actions = ls.code_actions(params)
        if ls.resolves_edits():
            return actions
        # A client that cannot resolve gets the edits now (one repair serves every action).
        resolved = [await ls.resolve(action, params.work_done_token) for action in actions]
        return [action for action in resolved if action.edit is not None]

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: TinycodeServer, action: types.CodeAction) -> types.CodeAction:
        return await ls.resolve(action)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: TinycodeServer, params: None) -> None:
        ls.asked_to_stop = True
        ls.stop_work("the client asked the server to shut down")

    return server


def serve(overrides: Mapping[str, object]) -> None:
    """Run the server on stdin/stdout until the client exits or goes away."""
    server = build_server(overrides)
    server.start_io()
