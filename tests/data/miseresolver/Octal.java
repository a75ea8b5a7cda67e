package org.cgsuite.core.misere.solver;

import java.util.*;

/**
 * An octal code "0.d1d2d3...": removing k tokens is allowed when d_k has bit 1 (take the
 * whole heap), bit 2 (leave one nonempty heap) or bit 4 (leave two nonempty heaps).
 */
public final class Octal implements HeapRuleset {
    private final int[] digits; // digits[k] for k >= 1

    public Octal(String code) {
        if (!code.startsWith("0.")) throw new IllegalArgumentException("code " + code);
        String d = code.substring(2);
        digits = new int[d.length() + 1];
        for (int k = 1; k <= d.length(); k++) digits[k] = d.charAt(k - 1) - '0';
    }

    public List<int[]> heapOptions(int n) {
        List<int[]> out = new ArrayList<>();
        for (int k = 1; k < digits.length && k <= n; k++) {
            int d = digits[k], r = n - k;
            if ((d & 1) != 0 && r == 0) out.add(new int[0]);
            if ((d & 2) != 0 && r > 0) out.add(new int[] {r});
            if ((d & 4) != 0) for (int a = 1; a <= r / 2; a++) if (r - a >= 1) out.add(new int[] {a, r - a});
        }
        return out;
    }
}
