// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

/**
 * Memory-region access flags, as in {@code enum ibv_access_flags}. A region is registered with a bit set of these;
 * every remote operation is checked against them by the target-side key lookup.
 * <p>
 * Local read access is always granted. {@link #LOCAL_WRITE} is required for a region used as the destination of a
 * RECV, an RDMA READ or an atomic's result, and by verbs convention whenever any remote write or atomic access is
 * granted.
 */
public final class Access
{
    /** The local host may write into the region (RECV target, READ destination, atomic result). */
    public static final int LOCAL_WRITE = 1;
    /** Peers may RDMA WRITE into the region. */
    public static final int REMOTE_WRITE = 1 << 1;
    /** Peers may RDMA READ from the region. */
    public static final int REMOTE_READ = 1 << 2;
    /** Peers may run atomics (fetch-and-add, compare-and-swap) on the region. */
    public static final int REMOTE_ATOMIC = 1 << 3;
    /** Every flag above. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;
    /** The flags that make a region reachable by peers. */
    public static final int ANY_REMOTE = REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    private Access()
    {
    }

    /**
     * Checks a flag set the way {@code ibv_reg_mr} does.
     *
     * @param access the flags.
     * @return the same flags.
     * @throws IllegalArgumentException if unknown bits are set, or remote write/atomic is asked without LOCAL_WRITE.
     */
    public static int validate(final int access)
    {
        if (0 != (access & ~ALL))
        {
            throw new IllegalArgumentException("unknown access bits 0x" + Integer.toHexString(access & ~ALL) +
                "; use the constants of io.verbs4j.Access");
        }
        if (0 != (access & (REMOTE_WRITE | REMOTE_ATOMIC)) && 0 == (access & LOCAL_WRITE))
        {
            throw new IllegalArgumentException("REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE too (as in verbs): " +
                toString(access));
        }
        return access;
    }

    /**
     * @param access the flags.
     * @return a readable form such as {@code LOCAL_WRITE|REMOTE_READ}.
     */
    public static String toString(final int access)
    {
        if (0 == access)
        {
            return "NONE";
        }
        final StringBuilder sb = new StringBuilder();
        append(sb, access, LOCAL_WRITE, "LOCAL_WRITE");
        append(sb, access, REMOTE_WRITE, "REMOTE_WRITE");
        append(sb, access, REMOTE_READ, "REMOTE_READ");
        append(sb, access, REMOTE_ATOMIC, "REMOTE_ATOMIC");
        return sb.toString();
    }

    private static void append(final StringBuilder sb, final int access, final int flag, final String name)
    {
        if (0 != (access & flag))
        {
            if (sb.length() > 0)
            {
                sb.append('|');
            }
            sb.append(name);
        }
    }
}
