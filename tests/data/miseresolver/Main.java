package org.cgsuite.core.misere.solver;

import java.util.concurrent.atomic.AtomicReference;

/**
 * For each code given: the order and P-portion size of its quotient of heaps 0..=N, or the
 * last heap fully reached when the order passes MAX or the time passes SECS (args: N MAX
 * SECS code...).
 */
public final class Main {
    public static void main(String[] args) throws InterruptedException {
        int heaps = Integer.parseInt(args[0]);
        int max = Integer.parseInt(args[1]);
        double secs = Double.parseDouble(args[2]);
        for (int i = 3; i < args.length; i++) {
            String code = args[i];
            long t0 = System.nanoTime();
            MisereSolver ms = new MisereSolver(new Octal(code));
            AtomicReference<String> status = new AtomicReference<>("ok");
            // The last complete state: heap reached, order, |P|.
            AtomicReference<int[]> last = new AtomicReference<>(new int[] {0, 1, 0});
            Thread t = new Thread(() -> {
                try {
                    while (ms.p.prefn.size() <= heaps) {
                        ms.next();
                        last.set(new int[] {ms.p.prefn.size() - 1, ms.p.quotient.size(), ms.p.quotient.pPortionSize()});
                        System.out.println(code + "\t" + (ms.p.prefn.size() - 1) + "\t" + ms.p.quotient.size() + "\t" + ms.p.quotient.pPortionSize() + "\theap");
                        if (ms.p.quotient.size() > max) { status.set("over"); break; }
                    }
                } catch (TimeoutException e) {
                    status.set("timeout");
                } catch (RuntimeException | OutOfMemoryError e) {
                    status.set("error:" + e);
                }
            });
            t.start();
            t.join((long) (secs * 1000));
            if (t.isAlive()) {
                t.interrupt();
                t.join();
            }
            int[] l = last.get();
            System.out.println(code + "\t" + l[0] + "\t" + l[1] + "\t" + l[2] + "\t" + status.get() + "\t"
                + String.format("%.3f", (System.nanoTime() - t0) / 1e9));
            System.out.flush();
        }
    }
}
