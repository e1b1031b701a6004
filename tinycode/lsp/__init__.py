"""The language server (``tinycode lsp``): diagnostics from ``check``, code actions from
the repair loop; it writes nothing to disk. Needs the ``lsp`` extra (pygls, lsprotocol)."""
