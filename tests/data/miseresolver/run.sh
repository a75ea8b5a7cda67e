#!/usr/bin/env bash
# Regenerates ../quotients-miseresolver.tsv: the misère quotients of every octal code
# 0.d1d2 and 0.d1d2d3 by MisereSolver, Plambeck and Siegel's program (in CGSuite's
# repository, lib/core/src/main/scala/org/cgsuite/core/misere/solver/), as an independent
# check of `grundy quotient`. Its sources are not part of grundy: give a checkout of CGSuite.
#
#   [OUT=file] bash tests/data/miseresolver/run.sh /path/to/cgsuite [HEAPS] [MAX_ORDER] [SECONDS]
#   CLASSES=dir bash tests/data/miseresolver/run.sh /path/to/cgsuite   # only build, into dir
#
# Needs a JDK (javac, java; Debian: openjdk-17-jdk-headless). The files beside this script
# are grundy's own: the octal rules (Octal.java), the rules' interface MisereSolver is
# given (HeapRuleset.java, standing in for CGSuite's Scala one), the exception it throws when
# interrupted (TimeoutException.java) and the driver (Main.java: one line per heap reached,
# each code given SECONDS at most). MisereSolver.java itself is edited in a scratch copy
# only so that it compiles without the rest of CGSuite: its Scala imports and its
# constructor from saved files go, and heapOptions asks the given rules.
set -euo pipefail
cgsuite=${1:?give the path of a CGSuite checkout}
heaps=${2:-30}; max=${3:-5000}; secs=${4:-2}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$cgsuite/lib/core/src/main/scala/org/cgsuite/core/misere/solver
for f in MisereSolver Pretension BipartiteMonoid CommutativeMonoid DirectSumMonoid ExplicitFiniteMonoid Relation Word; do
  cp "$src/$f.java" "$work/"
done
cp "$here"/*.java "$work/"
python3 - "$work/MisereSolver.java" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
for imp in ["import org.cgsuite.core.impartial.HeapRuleset;\n", "import org.cgsuite.core.impartial.TakeAndBreak;\n",
            "import scala.collection.immutable.IndexedSeq;\n", "import scala.jdk.CollectionConverters;\n"]:
    s = s.replace(imp, "")
a = s.index("    public MisereSolver(InputStream msvInputStream)")
b = s.index("    public HeapRuleset getRules()")
s = s[:a] + s[b:]
a = s.index("    public List<int[]> heapOptions(int heapSize) {")
b = s.index("    public void next()")
s = s[:a] + "    public List<int[]> heapOptions(int heapSize) {\n        return rules.heapOptions(heapSize);\n    }\n\n" + s[b:]
open(p, "w").write(s)
PY
mkdir "$work/out"
javac -nowarn -d "$work/out" "$work"/*.java
if [ -n "${CLASSES:-}" ]; then
  mkdir -p "$CLASSES" && cp -r "$work/out/." "$CLASSES/"
  echo "built $CLASSES (java -cp $CLASSES org.cgsuite.core.misere.solver.Main HEAPS MAX_ORDER SECONDS CODE...)"
  exit 0
fi
codes=()
for a in 0 1 2 3 4 5 6 7; do
  for b in 0 1 2 3 4 5 6 7; do
    [ "$b" != 0 ] && codes+=("0.$a$b")
    for c in 1 2 3 4 5 6 7; do codes+=("0.$a$b$c"); done
  done
done
commit=$(git -C "$cgsuite" rev-parse HEAD 2>/dev/null || echo unknown)
out=${OUT:-$here/../quotients-miseresolver.tsv}
{
  echo "# The misère quotients of the sums of heaps 0..=heap of every octal code 0.d1d2 and 0.d1d2d3"
  echo "# (d2 or d3 nonzero), computed by MisereSolver (Plambeck and Siegel's program, CGSuite"
  echo "# commit $commit) with tests/data/miseresolver/run.sh $heaps $max $secs"
  echo "# on $(date -u +%F): one row per heap reached, a code given $secs s and stopped when its"
  echo "# order passes $max. Columns: code, heap, order of the quotient, size of its P-portion."
  echo "# Read by crates/solve/src/quotient.rs (test quotients_agree_with_miseresolver)."
  printf 'code\theap\torder\tp_size\n'
  java -Xmx4g -cp "$work/out" org.cgsuite.core.misere.solver.Main "$heaps" "$max" "$secs" "${codes[@]}" \
    | awk -F'\t' '$5 == "heap" { print $1 "\t" $2 "\t" $3 "\t" $4 }'
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out"
