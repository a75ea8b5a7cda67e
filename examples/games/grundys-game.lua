-- Grundy's game: a move splits one heap into two heaps of different, non-zero sizes.
-- Positions are heap sizes: "7 10".
name = "grundys-game"
position = "integer"

function options(n, emit)
  for a = 1, (n - 1) // 2 do
    emit(a, n - a)
  end
end
