package org.sample;

import java.util.ArrayList;
import java.util.List;

/** A ledger of signed amounts in cents. */
public class Ledger {
    private final List<Long> entries = new ArrayList<>();

    /**
     * Records an amount in cents.
     *
     * @param cents the amount; negative for a withdrawal
     */
    public void record(long cents) {
        entries.add(cents);
    }

    /**
     * Computes the balance of every recorded amount.
     *
     * @return the sum in cents
     */
    public long balance() {
        long sum = 0;
        for (long e : entries) {
            sum += e;
        }
        return sum;
    }

    /** Formats cents as a decimal amount such as "12.34". */
    public static String format(long cents) {
        String sign = cents < 0 ? "-" : "";
        long abs = Math.abs(cents);
        return sign + (abs / 100) + "." + String.format("%02d", abs % 100);
    }
}
