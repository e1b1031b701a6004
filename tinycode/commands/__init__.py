"""One module per CLI command: ``add_arguments(parser)`` and ``run(args) -> int``.

Keep top-level imports light here: these modules are imported to build the parser.
"""
