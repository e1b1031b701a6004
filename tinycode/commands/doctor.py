"""``tinycode doctor [--probe] [--base-url URL]``: what this machine gives the model, for
bug reports.

The CPU and the features llama.cpp's kernels choose between (AVX2, AVX-512, AMX), the
llama-cpp-python build and what llama.cpp says it uses, whether the extra buffer types
are on, and the model the settings choose. ``--probe`` loads that model in its own
process and generates a few tokens: a crash there is reported, not suffered.
``--base-url`` asks a model server instead: its model, and how tinycode ranks candidate
repairs through it (and why not, where it cannot).
"""

from __future__ import annotations

import argparse
import platform
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--probe", action="store_true",
                        help="load the model (in a process of its own) and generate a few tokens")
    parser.add_argument("--model", help="registry name, alias or .gguf path (default: the settings')")
    parser.add_argument("--extra-buffers", action="store_true", default=None,
                        help="probe with llama.cpp's extra buffer types on")
    parser.add_argument("--base-url", metavar="URL",
                        help="an OpenAI-compatible model server: its model, and how tinycode "
                        "ranks candidates through it")


def run(args: argparse.Namespace) -> int:
    from ..config import load_settings
    from ..llm import native
    from ..version import __version__

    settings = load_settings({"model": args.model, "extra_buffers": args.extra_buffers})
    print(f"tinycode {__version__}, Python {platform.python_version()}, {platform.platform()}")
    flags = native.cpu_flags()
    print(f"cpu: {native.cpu_model() or platform.processor() or platform.machine()}")
    if flags is None:
        print("cpu features: unknown (no /proc/cpuinfo)")
    else:
        present = [name for name, on in flags.items() if on]
        print(f"cpu features: {' '.join(present) or 'none of ' + ' '.join(native.CPU_FLAGS)}")
    try:
        build = native.build_info()
    except ImportError:
        print("llama-cpp-python: not installed (pip install llama-cpp-python)")
        build = None
    if build is not None:
        print(f"llama-cpp-python: {build['version']}; GPU offload: {'yes' if build['gpu_offload'] else 'no'}")
        print(f"llama.cpp: {build['system']}")
    switch = build is None or build["extra_buffers_switch"]
    state = "on" if settings.extra_buffers else "off"
    print(f"extra buffer types: {state}" + ("" if switch else " (this build has no such switch)")
          + ("; they crash llama-cpp-python 0.3.36 at the first decode on CPUs with AMX"
             if settings.extra_buffers and flags and flags.get("amx_tile") else ""))
    print(f"backend: {settings.backend}; model: {settings.model or 'the registry default'}")
    if args.base_url:
        return _server(args.base_url, settings)
    if not args.probe:
        return 0
    return _probe(settings)


def _server(base_url: str, settings: object) -> int:
    """The server's model, its slots, and how candidates are ranked through it."""
    from ..errors import ModelError
    from ..llm.openai_http import OpenAIHTTPLLM

    try:
        llm = OpenAIHTTPLLM(base_url, offline=getattr(settings, "offline", False), retries=1)
        print(f"server: {llm.root}; model: {llm.model}")
        ranking, why = llm.scoring, llm.scoring_reason
    except ModelError as exc:
        print(f"server: failed: {exc}", file=sys.stderr)
        return 2
    print(f"ranking: {ranking}")
    if why and not ranking.startswith("not ranked"):
        print(f"  because {why}")
    if ranking.startswith("not ranked"):
        print("  files that need a choice among candidates are given to the model's rewrite instead")
    return 0


def _probe(settings: object) -> int:
    """Load the settings' model in a contained process and generate a few tokens."""
    import time

    from ..errors import ModelError
    from ..llm.loader import load_llm, model_options

    started = time.perf_counter()
    try:
        llm = load_llm(**model_options(settings))
        answer = llm.complete("def add(a, b):\n    return", max_tokens=4)
    except ModelError as exc:
        print(f"probe: failed: {exc}", file=sys.stderr)
        return 2
    extra = getattr(llm, "extra_buffers", None)
    print(f"probe: ok, {llm.name} answered {answer.text!r} in {time.perf_counter() - started:.1f} s"
          + ("" if extra is None else f" (loaded with extra buffer types {'on' if extra else 'off'})"))
    return 0
