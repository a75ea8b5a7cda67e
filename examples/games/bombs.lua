-- The Bomb Game (HDU 2873): bombs on a grid, rows and columns from 0. A bomb in row 0 or
-- column 0 moves to any cell strictly nearer the corner along that line; any other bomb at
-- (i, j) is replaced by two bombs, at (i, j') and (i', j), for any i' < i, j' < j. A bomb on
-- the corner (0, 0) explodes. Notation: rows of '.' and '#' (a bomb) joined by '/': ".#/#.".
--
-- Each bomb is a component {i, j, rows, cols} (the board's size rides along so a position
-- can be written back). Two bombs on one cell explode in the built-in game; here they stay,
-- which is the same game under normal play (equal components cancel), and are written as a
-- count ("2") so that every position has its own text.
name = "bombs"
position = "tuple"

function parse(text)
  local rows = {}
  for row in text:gmatch("[^/%s]+") do rows[#rows + 1] = row end
  if #rows == 0 then return nil, "empty board" end
  local cols = #rows[1]
  local bombs = {}
  for i, row in ipairs(rows) do
    if #row ~= cols then return nil, "row " .. i .. " has " .. #row .. " cells, row 1 has " .. cols end
    for j = 1, cols do
      local ch = row:sub(j, j)
      local count
      if ch == "." then count = 0 elseif ch == "#" then count = 1 else count = tonumber(ch) end
      if not count then return nil, "unknown cell '" .. ch .. "' (expected '.' or '#')" end
      if i > 1 or j > 1 then
        for _ = 1, count do bombs[#bombs + 1] = { i - 1, j - 1, #rows, cols } end
      end
    end
  end
  if #rows > 256 or cols > 256 then return nil, "boards are at most 256x256" end
  return bombs
end

function format(p)
  if #p == 0 then return "." end
  local rows, cols = p[1][3], p[1][4]
  local count = {}
  for _, b in ipairs(p) do
    local k = b[1] * cols + b[2]
    count[k] = (count[k] or 0) + 1
  end
  local out = {}
  for i = 0, rows - 1 do
    local row = {}
    for j = 0, cols - 1 do
      local c = count[i * cols + j] or 0
      row[j + 1] = c == 0 and "." or c == 1 and "#" or tostring(math.min(c, 9))
    end
    out[i + 1] = table.concat(row)
  end
  return table.concat(out, "/")
end

function options(b, emit)
  local i, j, r, c = b[1], b[2], b[3], b[4]
  if i == 0 then
    for k = 0, j - 1 do
      if k == 0 then emit() else emit({ 0, k, r, c }) end
    end
  elseif j == 0 then
    for k = 0, i - 1 do
      if k == 0 then emit() else emit({ k, 0, r, c }) end
    end
  else
    for i2 = 0, i - 1 do
      for j2 = 0, j - 1 do
        emit({ i, j2, r, c }, { i2, j, r, c })
      end
    end
  end
end
