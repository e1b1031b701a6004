-- tinycode's language server in Neovim 0.7 to 0.10 (vim.lsp.start_client), for init.lua.
-- One server serves every buffer of the session; it needs `pip install "tinycode[lsp]"`.
local tinycode_client
vim.api.nvim_create_autocmd("FileType", {
  pattern = { "python", "javascript", "typescript", "typescriptreact", "go", "rust", "java", "c", "cpp",
              "cs", "ruby", "php", "sh", "bash", "json", "css", "html", "yaml", "toml" },
  callback = function(args)
    if not tinycode_client then
      tinycode_client = vim.lsp.start_client({
        name = "tinycode",
        cmd = { "tinycode", "lsp" },
        root_dir = vim.fn.getcwd(),
      })
    end
    vim.lsp.buf_attach_client(args.buf, tinycode_client)
  end,
})
