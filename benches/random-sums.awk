# Random misère sums for the bench scripts (benches/misere-all-codes.sh, misere-sums.sh):
# n sums of 3 to 5 heaps with at most 60 tokens in all, one a line, heaps separated by a
# space, drawn by awk's generator seeded by `seed` (the same sums every run).
#   awk -v seed=SEED -v n=N -f benches/random-sums.awk
BEGIN {
  srand(seed);
  for (i = 0; i < n; i++) {
    k = 3 + int(rand() * 3); total = k + int(rand() * (61 - k)); left = total; s = "";
    for (j = 0; j < k; j++) {
      if (j == k - 1) h = left; else h = 1 + int(rand() * (left - (k - j - 1)));
      if (h < 1) h = 1; left -= h; s = s (j ? " " : "") h;
    }
    print s;
  }
}
