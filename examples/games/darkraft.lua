-- World of Darkraft (Codeforces 138D): a board of L, R and X cells; a move picks an intact
-- cell and fires lasers diagonally from it (L: down-left and up-right, R: up-left and
-- down-right, X: all four), destroying it and every intact cell on the way, up to a
-- destroyed cell or the border. Notation: rows of L, R, X and '.' (destroyed) joined by '/'.
--
-- Lasers go diagonally, so cells of the two colours of a chessboard never interact: a
-- component is the board with the cells of one colour only (the others shown destroyed).
name = "darkraft"
position = "grid"

function parse(text)
  local rows = {}
  for row in text:gmatch("[^/%s]+") do
    if row:find("[^LRX%.]") then
      return nil, "unknown cell '" .. row:match("[^LRX%.]") .. "' (expected L, R, X or .)"
    end
    rows[#rows + 1] = row
  end
  if #rows == 0 then return nil, "empty board" end
  for i, row in ipairs(rows) do
    if #row ~= #rows[1] then return nil, "row " .. i .. " has " .. #row .. " cells, row 1 has " .. #rows[1] end
  end
  return rows
end

-- The board's cells of one colour (parity of row + column); nil when none is intact.
local function colour(rows, parity)
  local out, any = {}, false
  for i, row in ipairs(rows) do
    local cells = {}
    for j = 1, #row do
      local ch = row:sub(j, j)
      if (i + j) % 2 == parity and ch ~= "." then
        cells[j] = ch
        any = true
      else
        cells[j] = "."
      end
    end
    out[i] = table.concat(cells)
  end
  if any then return out end
  return nil
end

function components(rows)
  local out = {}
  for parity = 0, 1 do
    local g = colour(rows, parity)
    if g then out[#out + 1] = g end
  end
  return out
end

-- A board as read, or the components laid over each other.
function format(p)
  if #p == 0 then return "." end
  if type(p[1]) == "string" then return table.concat(p, "/") end
  local rows = {}
  for i = 1, #p[1] do
    local cells = {}
    for j = 1, #p[1][i] do
      local ch = "."
      for _, g in ipairs(p) do
        local c = g[i]:sub(j, j)
        if c ~= "." then ch = c end
      end
      cells[j] = ch
    end
    rows[i] = table.concat(cells)
  end
  return table.concat(rows, "/")
end

local DIRECTIONS = {
  L = { { 1, -1 }, { -1, 1 } },
  R = { { -1, -1 }, { 1, 1 } },
  X = { { 1, -1 }, { -1, 1 }, { -1, -1 }, { 1, 1 } },
}

function options(g, emit)
  local h, w = #g, #g[1]
  local cell = {}
  for i = 1, h do
    cell[i] = {}
    for j = 1, w do cell[i][j] = g[i]:sub(j, j) end
  end
  for i = 1, h do
    for j = 1, w do
      local ch = cell[i][j]
      if ch ~= "." then
        local gone = { [i * (w + 1) + j] = true }
        for _, d in ipairs(DIRECTIONS[ch]) do
          local r, c = i + d[1], j + d[2]
          while r >= 1 and r <= h and c >= 1 and c <= w and cell[r][c] ~= "." do
            gone[r * (w + 1) + c] = true
            r, c = r + d[1], c + d[2]
          end
        end
        local rows, any = {}, false
        for r = 1, h do
          local cells = {}
          for c = 1, w do
            if gone[r * (w + 1) + c] then cells[c] = "." else
              cells[c] = cell[r][c]
              if cells[c] ~= "." then any = true end
            end
          end
          rows[r] = table.concat(cells)
        end
        if any then emit(rows) else emit() end
      end
    end
  end
end
