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
    verify = sub.add_parser("verify", help="re-hash cached models against the registry")
    verify.add_argument("name", nargs="?")
    path = sub.add_parser("path", help="print the local path of a verified model")
    path.add_argument("name", nargs="?")


def run(args: argparse.Namespace) -> int:
    from .. import models
    from ..errors import ModelError

    if args.action == "list":
        default = models.default_model_name()
        for info in models.registry()[1]:
            if models.cached_path(info):
                where = "cached"
            elif models.chunks_installed(info):
                where = "chunks installed"
            else:
                where = f"not here ({models.how_to_get(info)})"
            mark = "*" if info.name == default else " "
            print(f"{mark} {info.name:<40} {info.size / 1e6:8,.0f} MB  {where}")
        return 0
    if args.action == "pull":
        print(models.resolve_model_path(args.name, offline=args.offline, progress=True))
        return 0
    if args.action == "path":
        info = models.find_model(args.name)
        if info is None:
            raise ModelError(f"unknown model {args.name!r}")
        path = models.cached_path(info)
        if path is None:
            raise ModelError(f"{info.name} is not in the cache: {models.how_to_get(info)}")
        print(path)
        return 0
    # verify
    if args.name:
        info = models.find_model(args.name)
        if info is None:
            raise ModelError(f"unknown model {args.name!r}")
        selected = [info]
    else:
        selected = [models.find_model(None)]
    failed = False
    for info in selected:
        assert info is not None
        path, verdict = models.verify(info)
        if path is None and models.chunks_installed(info) and verdict == "not downloaded":
            path = models.assemble(info, progress=models._terminal_progress(info.name))
            path, verdict = models.verify(info)
        print(f"{info.name}: {verdict}" + (f" ({path})" if path else ""))
        failed |= path is None
    return 1 if failed else 0
