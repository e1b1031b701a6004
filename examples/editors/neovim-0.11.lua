-- tinycode's language server in Neovim 0.11 and later (vim.lsp.config), for init.lua.
-- It needs `pip install "tinycode[lsp]"`.
vim.lsp.config("tinycode", {
  cmd = { "tinycode", "lsp" },
  filetypes = { "python", "javascript", "typescript", "typescriptreact", "go", "rust", "java", "c", "cpp",
                "cs", "ruby", "php", "sh", "bash", "json", "css", "html", "yaml", "toml" },
  root_markers = { "pyproject.toml", ".git" },
})
vim.lsp.enable("tinycode")
