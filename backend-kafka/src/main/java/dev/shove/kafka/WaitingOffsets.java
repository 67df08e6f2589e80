package dev.shove.kafka;

import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The sequenced retries waiting in place in one partition, written into the metadata of the partition's committed
 * offset so that a consumer taking the partition over (after a restart, a crash or a rebalance) delivers each record
 * again with the retry count and due time it had, rather than from scratch.
 *
 * <p>Format: {@code shove-waits/1;offset:retryCount:notBeforeEpochMs,...}, lowest offsets first. Kafka bounds commit
 * metadata ({@code offset.metadata.max.bytes}, 4096 by default), so {@link #encode} writes at most {@link #MAX_CHARS}
 * characters: with more waits than fit, the highest offsets are left out, and those records start again from the
 * retry count they were published with.
 */
final class WaitingOffsets {
    static final String PREFIX = "shove-waits/1;";
    static final int MAX_CHARS = 4000;

    /** A record waiting out a retry: the count of its next run and when that run is due. */
    record Wait(int retryCount, long notBeforeEpochMs) {}

    private WaitingOffsets() {}

    /** The metadata for {@code waits} (offset → wait); empty when there are none. */
    static String encode(NavigableMap<Long, Wait> waits) {
        if (waits.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder(PREFIX);
        boolean first = true;
        for (Map.Entry<Long, Wait> e : waits.entrySet()) {
            String entry = e.getKey() + ":" + e.getValue().retryCount() + ":"
                    + e.getValue().notBeforeEpochMs();
            if (out.length() + entry.length() + 1 > MAX_CHARS) {
                break;
            }
            if (!first) {
                out.append(',');
            }
            out.append(entry);
            first = false;
        }
        return out.toString();
    }

    /** Whether {@code waits} fit in full into one commit's metadata. */
    static boolean fits(NavigableMap<Long, Wait> waits) {
        return entries(encode(waits)) == waits.size();
    }

    /** How many waits {@link #encode} wrote into {@code metadata}. */
    static int entries(String metadata) {
        if (metadata.length() <= PREFIX.length()) {
            return 0;
        }
        int n = 1;
        for (int i = PREFIX.length(); i < metadata.length(); i++) {
            if (metadata.charAt(i) == ',') {
                n++;
            }
        }
        return n;
    }

    /**
     * The waits in {@code metadata}; empty when it holds none or was not written by shove. A malformed entry is
     * skipped (the record it names then starts from its published retry count).
     */
    static NavigableMap<Long, Wait> decode(String metadata) {
        NavigableMap<Long, Wait> waits = new TreeMap<>();
        if (metadata == null || !metadata.startsWith(PREFIX)) {
            return waits;
        }
        String body = metadata.substring(PREFIX.length());
        if (body.isEmpty()) {
            return waits;
        }
        for (String entry : body.split(",")) {
            String[] parts = entry.split(":");
            if (parts.length != 3) {
                continue;
            }
            try {
                long offset = Long.parseLong(parts[0]);
                int retryCount = Integer.parseInt(parts[1]);
                long notBefore = Long.parseLong(parts[2]);
                if (offset >= 0 && retryCount >= 0) {
                    waits.put(offset, new Wait(retryCount, notBefore));
                }
            } catch (NumberFormatException e) {
                // skipped: see above
            }
        }
        return waits;
    }
}
