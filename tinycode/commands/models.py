"""``tinycode models list | pull NAME | verify [NAME] | path NAME``."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    sub.add_parser("list", help="known models and whether each is on this machine")
    pull = sub.add_parser("pull", help="assemble or download a model into the cache")
    pull.add_argument("name", nargs="?", help="registry name or alias (default: the default model)")
    pull.add_argument("--offline", action="store_true", help="never use the network")
    verify = sub.add_parser("verify", help="re-hash models against the registry "
                                           "(default: the default model and every model present)")
    verify.add_argument("name", nargs="?")
    path = sub.add_parser("path", help="print the local path of a verified model")
    path.add_argument("name", nargs="?")


def run(args: argparse.Namespace) -> int:
    from .. import models

    if args.action == "list":
        default = models.default_model_name()
        print(f"cache: {models.cache_dir()}")
        for info in models.registry()[1]:
            if models.cached_path(info):
                where = "cached"
            elif models.chunks_installed(info):
                where = "chunks installed (assembled on first use)"
            else:
                where = f"not here: {models.how_to_get(info)}"
            mark = "*" if info.name == default else " "
            print(f"{mark} {info.name:<36} {info.size / 1e6:7,.0f} MB  {where}")
        return 0
    if args.action == "pull":
        print(models.resolve_model_path(_entry(args.name).name, offline=args.offline, progress=True))
        return 0
    if args.action == "path":
        if args.name and models.looks_like_path(args.name):
            print(models.resolve_model_path(args.name))
            return 0
        info = _entry(args.name)
        found = models.cached_path(info)
        if found is None:
            from ..errors import ModelError

            raise ModelError(f"{info.name} is not in the cache {models.cache_dir()}: {models.how_to_get(info)}")
        print(found)
        return 0
    return _verify(args.name)


def _entry(name: str | None):  # noqa: ANN202 - models.ModelInfo, imported lazily
    from .. import models
    from ..errors import ModelError

    info = models.find_model(name)
    if info is None:
        known = ", ".join(m.name for m in models.registry()[1])
        raise ModelError(f"unknown model {name!r} (known: {known})")
    return info


def _verify(name: str | None) -> int:
    """Re-hash for real; a model whose chunk packages are installed is assembled first."""
    from .. import models

    if name:
        selected = [_entry(name)]
    else:
        default = _entry(None)
        selected = [info for info in models.registry()[1]
                    if info is default or (models.cache_dir() / info.file).exists()
                    or models.chunks_installed(info)]
    failed = False
    for info in selected:
        found, verdict = models.verify(info)
        if found is None and verdict == "not downloaded" and models.chunks_installed(info):
            models.assemble(info, progress=models.terminal_progress(info.name))
            found, verdict = models.verify(info)
        if found is None and verdict == "not downloaded":
            verdict = f"not downloaded: {models.how_to_get(info)}"
        print(f"{info.name}: {verdict}" + (f" ({found})" if found else ""))
        failed |= found is None
    return 2 if failed else 0
