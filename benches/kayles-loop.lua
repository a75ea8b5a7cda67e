-- Kayles written with a plain loop of emit calls (no split, no heap table): the benchmark
-- (benches/game-files.sh) times it beside examples/games/kayles.lua, which uses both.
name = "kayles"
position = "integer"

-- The options of one row of n pins, through the emit callback: emit(a, b) is one option,
-- the rows a and b that are left (emit() when nothing is left, emit(a) for one row).
function options(n, emit)
  for take = 1, 2 do
    local rest = n - take
    if rest >= 0 then
      for i = 0, rest // 2 do
        local j = rest - i
        if i == 0 then
          if j == 0 then emit() else emit(j) end
        else
          emit(i, j)
        end
      end
    end
  end
end
