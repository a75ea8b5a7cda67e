-- Wythoff's game as a script (the spec examples/games/wythoff.toml says the same with no
-- code): two heaps "a b"; a move takes any number of tokens from one heap, or the same
-- number from both. Used by benches/game-files.sh to compare a script with a spec.
name = "wythoff-script"
position = "tuple"

-- (a, b) and (b, a) are the same game.
function canonical(c)
  if c[1] <= c[2] then return c end
  return { c[2], c[1] }
end

function options(c, emit)
  local a, b = c[1], c[2]
  for k = 1, a do emit({ a - k, b }) end
  for k = 1, b do emit({ a, b - k }) end
  for k = 1, math.min(a, b) do emit({ a - k, b - k }) end
end
