"""How fast ``tinycode lsp`` answers an editor, measured over stdio as an editor talks to it.

- diagnostics: from a change of a 2,000-line file (an error put in, then taken out) to
  the diagnostics of that version (target: 100 ms; the debounce is part of it);
- quick fix: "Repair with tinycode" for one error that the model ranks, with the model
  warm (the first repair loads it and is not counted; target: median 1 s);
- memory: the resident size of the idle server and of its model's process.

    python tools/lsp_speed.py                  # the default model
    python tools/lsp_speed.py --changes 20 --repairs 5 --model 1.5b

Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parent.parent
DIAGNOSTICS_TARGET, QUICK_FIX_TARGET = 0.100, 1.0
LINES = 2000

# One error the model ranks: a call's ')' lost, with several places it may go back.
REPAIR_CASE = (ROOT / "examples" / "python" / "broken.py").read_text(encoding="utf-8")


def python_file(lines: int) -> str:
    """``lines`` lines of clean Python: small functions, each different."""
    out: list[str] = []
    n = 0
    while len(out) < lines:
        out += [f"def scale_{n}(values, factor={n}):", "    total = sum(v * factor for v in values)",
                f"    return {{'n': {n}, 'total': total}}", "", ""]
        n += 1
    return "\n".join(out[:lines]) + "\n"


def javascript_file(lines: int) -> str:
    out: list[str] = []
    n = 0
    while len(out) < lines:
        out += [f"function scale{n}(values, factor = {n}) {{",
                "  const total = values.reduce((a, v) => a + v * factor, 0);",
                f"  return {{ n: {n}, total }};", "}", ""]
        n += 1
    return "\n".join(out[:lines]) + "\n"


class Client(LanguageClient):
    """A client that keeps each document's last diagnostics and their version."""

    def __init__(self) -> None:
        super().__init__("tinycode-lsp-speed", "1")
        self.published: dict[str, tuple[int | None, list[types.Diagnostic], float]] = {}
        self.changed = asyncio.Event()

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            self.published[params.uri] = (params.version, list(params.diagnostics), time.perf_counter())
            self.changed.set()

    async def diagnostics_of(self, uri: str, version: int, timeout: float = 30) -> tuple[list, float]:
        end = time.monotonic() + timeout
        while True:
            found = self.published.get(uri)
            if found is not None and found[0] == version:
                return found[1], found[2]
            if time.monotonic() > end:
                raise TimeoutError(f"no diagnostics for version {version} of {uri}")
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), 0.5)
            except asyncio.TimeoutError:
                pass


def open_text(client: Client, path: Path, text: str, language: str) -> str:
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))
    return uri


def change(client: Client, uri: str, version: int, text: str) -> float:
    sent = time.perf_counter()
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangeWholeDocument(text=text)]))
    return sent


async def diagnostics_latency(client: Client, folder: Path, language: str, text: str, changes: int) -> list[float]:
    """Seconds from each change to its diagnostics, an error put in and taken out in turn."""
    suffix = {"python": ".py", "javascript": ".js"}[language]
    uri = open_text(client, folder / f"long{suffix}", text, language)
    await client.diagnostics_of(uri, 1)
    lines = text.split("\n")
    middle = LINES // 2 - (LINES // 2) % 5  # a function's first line
    broken = "\n".join(lines[:middle] + [lines[middle].replace("(", "", 1)] + lines[middle + 1:])
    times = []
    for version in range(2, changes + 2):
        sent = change(client, uri, version, broken if version % 2 == 0 else text)
        found, at = await client.diagnostics_of(uri, version)
        assert bool(found) == (version % 2 == 0), found
        times.append(at - sent)
        await asyncio.sleep(0.3)  # a person's pause: the idle check of the last one must not overlap
    return times


async def quick_fixes(client: Client, folder: Path, repairs: int) -> tuple[float, list[float]]:
    """(the first repair, which loads the model; the later ones), in seconds each, from
    the code action request to its resolved edit."""
    times = []
    for n in range(repairs + 1):
        text = f"# variant {n}\n" + REPAIR_CASE  # a new text: no repair is reused
        uri = open_text(client, folder / f"repair{n}.py", text, "python")
        found, _ = await client.diagnostics_of(uri, 1)
        started = time.perf_counter()
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            types.TextDocumentIdentifier(uri), found[0].range, types.CodeActionContext(diagnostics=found[:1])))
        action = await client.code_action_resolve_async(actions[0])
        times.append(time.perf_counter() - started)
        if action.edit is None:
            raise RuntimeError(f"no repair for variant {n}")
    return times[0], times[1:]


def resident_kib(pid: int) -> int:
    """Resident memory (KiB) of ``pid`` and every process under it."""
    total = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total += int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))
            for task in Path(f"/proc/{current}/task").iterdir():
                children = (task / "children").read_text().split()
                pending.extend(int(c) for c in children)
        except (OSError, StopIteration):
            continue
    return total


async def run(args: argparse.Namespace) -> int:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "tinycode", "lsp", "--offline"] + (["--model", args.model] if args.model else [])
    client = Client()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / ".git").mkdir()
        await client.start_io(*command, env=env)
        await client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=folder.as_uri(), process_id=os.getpid()))
        client.initialized(types.InitializedParams())
        server_pid = client._server.pid  # type: ignore[union-attr]
        missed = False
        for language, text in (("python", python_file(LINES)), ("javascript", javascript_file(LINES))):
            times = await diagnostics_latency(client, folder, language, text, args.changes)
            median, worst = statistics.median(times), max(times)
            missed |= median > DIAGNOSTICS_TARGET
            print(f"diagnostics after a change, {LINES}-line {language} file: median {median * 1000:.0f} ms, "
                  f"max {worst * 1000:.0f} ms over {len(times)} changes (target {DIAGNOSTICS_TARGET * 1000:.0f} ms)")
        idle_before = resident_kib(server_pid)
        first, warm = await quick_fixes(client, folder, args.repairs)
        median = statistics.median(warm)
        missed |= median > QUICK_FIX_TARGET
        print(f"quick fix, one error the model ranks: first {first:.2f} s (loads the model), then median "
              f"{median:.2f} s, max {max(warm):.2f} s over {len(warm)} (target {QUICK_FIX_TARGET:.1f} s)")
        await asyncio.sleep(2)
        print(f"idle server: {idle_before / 1024:.0f} MiB before the model; {resident_kib(server_pid) / 1024:.0f} "
              "MiB with the model loaded (the server and its model's process)")
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    return 1 if missed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="registry name, alias or .gguf path (default: the default model)")
    parser.add_argument("--changes", type=int, default=20, help="changes timed per file (default 20)")
    parser.add_argument("--repairs", type=int, default=7, help="warm quick fixes timed (default 7)")
    return asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
