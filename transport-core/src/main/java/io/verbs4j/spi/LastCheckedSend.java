// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import io.verbs4j.Opcode;
import io.verbs4j.SendRequest;

/**
 * The send request a queue pair checked and resolved last, so that the same request object posted again unchanged
 * (a request reused in a loop, as perftest and the collectives post them) skips the shape checks and the lkey
 * resolution of its SGEs.
 * <p>
 * Invariant: {@link #matches} is true only if {@code request} is the object remembered, its
 * {@link SendRequest#shapeVersion()} is the one it had when it passed every check with every SGE resolved, it is not
 * an atomic (whose checks read the remote address, which the version does not cover), and every resolved region is
 * still open. A region closed meanwhile, or any change of opcode, flags or SGEs, sends the post through the full
 * checks again. Nothing else the checks read can change while the queue pair exists (its attributes and the
 * device's capabilities are fixed at creation; a region's address, length and access are fixed while it is open).
 * <p>
 * Threading: the queue pair's posting thread (one poster per send queue, as every post).
 */
final class LastCheckedSend
{
    private final AbstractMemoryRegion[] regions;
    private final long[] offsets;
    private SendRequest request;
    private long version;
    private int count;

    /**
     * @param maxSge the queue pair's most SGEs per send.
     */
    LastCheckedSend(final int maxSge)
    {
        regions = new AbstractMemoryRegion[maxSge];
        offsets = new long[maxSge];
    }

    /**
     * @param candidate a request being posted.
     * @return true if it is the remembered request, unchanged, with every region still open; {@link #regions()} and
     *         {@link #offsets()} then hold its resolution.
     */
    boolean matches(final SendRequest candidate)
    {
        if (candidate != request || candidate.shapeVersion() != version)
        {
            return false;
        }
        if (!AbstractMemoryRegion.allOpen(regions, count))
        {
            forget();
            return false;
        }
        return true;
    }

    /**
     * Remembers a request that passed every check with every SGE resolved into {@link #regions()} and
     * {@link #offsets()} (anything else must not be remembered; call {@link #forget()} before resolving into them).
     *
     * @param checked the request.
     */
    void remember(final SendRequest checked)
    {
        if (Opcode.isAtomic(checked.opcode()))
        {
            return;
        }
        final int n = checked.sgeCount();
        for (int i = n; i < count; i++)
        {
            regions[i] = null;
        }
        count = n;
        request = checked;
        version = checked.shapeVersion();
    }

    /** Forgets the remembered request (its regions stay referenced until the next {@link #remember}). */
    void forget()
    {
        request = null;
    }

    /** @return the region of each SGE of the remembered request; where a request being checked is resolved. */
    AbstractMemoryRegion[] regions()
    {
        return regions;
    }

    /** @return the offset of each SGE of the remembered request in its region; see {@link #regions()}. */
    long[] offsets()
    {
        return offsets;
    }
}
