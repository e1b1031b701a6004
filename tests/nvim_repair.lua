-- Run by test_lsp_neovim.py in headless Neovim after the documented configuration: wait
-- for tinycode's diagnostics, choose "Repair with tinycode" at the first one, wait for
-- the edit and the diagnostics after it, then write what happened to $TINYCODE_NVIM_OUT.
local out = assert(os.getenv("TINYCODE_NVIM_OUT"))
local report = {}

local function finish(status)
  report.status = status
  report.lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local file = assert(io.open(out, "w"))
  file:write(vim.fn.json_encode(report))
  file:close()
  vim.cmd("qa!")
end

local chosen = {}
vim.ui.select = function(items, _, on_choice)
  for _, item in ipairs(items) do
    table.insert(chosen, item[2].title)
  end
  for _, item in ipairs(items) do
    if item[2].title == "Repair with tinycode" then
      return on_choice(item)
    end
  end
  on_choice(nil)
end

if not vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 50) then
  return finish("no diagnostics")
end
local first = vim.diagnostic.get(0)[1]
report.diagnostics = vim.tbl_map(function(d) return { d.lnum, d.col, d.message } end, vim.diagnostic.get(0))
local tick = vim.api.nvim_buf_get_changedtick(0)
vim.api.nvim_win_set_cursor(0, { first.lnum + 1, first.col })
vim.lsp.buf.code_action()
if not vim.wait(30000, function() return vim.api.nvim_buf_get_changedtick(0) ~= tick end, 50) then
  report.actions = chosen
  return finish("no edit")
end
report.actions = chosen
if not vim.wait(10000, function() return #vim.diagnostic.get(0) == 0 end, 50) then
  report.after = vim.tbl_map(function(d) return d.message end, vim.diagnostic.get(0))
  return finish("diagnostics remain")
end
finish("repaired")
