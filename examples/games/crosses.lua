-- Crosses and Crosses (POJ 3537, Treblecross): a strip of squares; a move puts an X on an
-- empty square; whoever first completes three X in a row wins. Notation: "..X....".
--
-- An X within two squares of another lets the opponent complete three, so nobody plays
-- there unless forced: the squares at distance 3 or more from every X form "safe" runs,
-- the components. An X at offset j of a run of L leaves runs of j-2 and L-j-3. A player with
-- no safe square must give the opponent a win, as a player with no option loses.
name = "crosses"
position = "integer"

function parse(text)
  local s = text:match("^%s*([%.Xx]+)%s*$")
  if not s then return nil, "a strip is one word of '.' and 'X', e.g. ..X.." end
  if #s > 65536 then return nil, "strip too long (at most 65536 squares)" end
  s = s:gsub("x", "X")
  if s:find("XXX", 1, true) then return nil, "three X in a row already: the game is over" end
  return s
end

-- The safe runs of a strip (a strip of 1 or 2 squares can never hold three X: each empty
-- square is a run of one).
function components(s)
  local n, runs = #s, {}
  if n <= 2 then
    for i = 1, n do
      if s:sub(i, i) == "." then runs[#runs + 1] = 1 end
    end
    return runs
  end
  local unsafe = {}
  for i = 1, n do
    if s:sub(i, i) == "X" then
      for k = math.max(1, i - 2), math.min(n, i + 2) do unsafe[k] = true end
    end
  end
  local len = 0
  for i = 1, n + 1 do
    if i > n or unsafe[i] then
      if len > 0 then runs[#runs + 1] = len end
      len = 0
    else
      len = len + 1
    end
  end
  return runs
end

-- A strip as read, or after a move a strip with these safe runs.
function format(p)
  if type(p) == "string" then return p end
  if #p == 0 then return "X" end
  local parts = {}
  for i, len in ipairs(p) do parts[i] = string.rep(".", len) end
  return table.concat(parts, "..X..") .. "..X"
end

function options(len, emit)
  for j = 0, (len + 1) // 2 - 1 do
    local a, b = math.max(0, j - 2), math.max(0, len - j - 3)
    if a == 0 and b == 0 then emit()
    elseif a == 0 then emit(b)
    elseif b == 0 then emit(a)
    else emit(math.min(a, b), math.max(a, b)) end
  end
end

-- Squares (from 1) where an X completes three in a row.
function wins(p)
  if type(p) ~= "string" then return {} end
  local out = {}
  local function x(i) return i >= 1 and p:sub(i, i) == "X" end
  for i = 1, #p do
    if not x(i) and ((x(i - 2) and x(i - 1)) or (x(i - 1) and x(i + 1)) or (x(i + 1) and x(i + 2))) then
      out[#out + 1] = i
    end
  end
  return out
end
