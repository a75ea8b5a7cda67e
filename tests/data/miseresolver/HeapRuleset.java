package org.cgsuite.core.misere.solver;

import java.util.List;

/** The options of a heap: each a list of the heaps it leaves (empty: none). */
public interface HeapRuleset {
    List<int[]> heapOptions(int n);
}
