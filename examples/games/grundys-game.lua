-- Grundy's game: a heap of n tokens; a move splits one heap into two non-empty heaps of
-- different sizes. Positions are heaps: "5 9 12".
name = "grundys-game"
position = "integer"
-- Heaps: every option is a sum of smaller heaps, valued in a dense table.
layout = "heaps"

-- split(n, emit, "unequal"): emit(a, n - a) for every 1 <= a < n - a (docs/scripts.md).
function options(n, emit)
  split(n, emit, "unequal")
end
