-- Dawson's Kayles (octal game 0.07): a row of n pins; a move knocks down two adjacent pins,
-- which may split the row in two. Positions are rows of pins: "5 9 12".
name = "dawsons-kayles"
position = "integer"
-- Rows are heaps (every option is a sum of shorter rows): valued in a dense table.
layout = "heaps"

-- split(rest, emit): every way to leave `rest` pins in at most two rows (docs/scripts.md).
function options(n, emit)
  if n >= 2 then
    split(n - 2, emit)
  end
end
