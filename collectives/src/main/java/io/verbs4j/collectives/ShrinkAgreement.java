// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.verbs4j.collectives.rendezvous.RendezvousStore;

/**
 * How the survivors of a failed communicator agree on who carries on ({@link Communicator#shrink()}), through the
 * rendezvous store, since the failure closed every connection:
 * <ol>
 *   <li>each survivor sets {@code alive/<rank>};</li>
 *   <li>it waits until every other rank has either said so, or is a rank it knows failed, or the grace period (twice
 *       the peer timeout) has passed — a dead rank nobody named costs that grace once;</li>
 *   <li>the first survivor done waiting wins {@code add("decider", 1) == 1} and writes {@code members}: the ranks
 *       that said alive by then, in rank order; every survivor reads that one list, so all agree even when their
 *       views differed. A survivor too slow to be in it is told so.</li>
 * </ol>
 * Keys live under a prefix of the communicator's name and the shrink number, so a store serves any number of
 * rounds. Setup path: allocates, sleeps between store polls.
 */
final class ShrinkAgreement
{
    private static final long POLL_NS = TimeUnit.MILLISECONDS.toNanos(2);

    private ShrinkAgreement()
    {
    }

    /**
     * @param store        the store, already under this round's prefix.
     * @param rank         this rank.
     * @param size         ranks of the failed communicator.
     * @param knownFailed  ranks this rank knows failed (may be empty).
     * @param graceNs      longest wait for a rank that neither said alive nor is known failed.
     * @param timeout      longest wait for the decision.
     * @return the members, in rank order (this rank among them).
     * @throws CollectiveException BOOTSTRAP if this rank was left out or no decision came.
     */
    static int[] agree(final RendezvousStore store, final int rank, final int size, final boolean[] knownFailed,
        final long graceNs, final Duration timeout)
    {
        store.set(aliveKey(rank), new byte[]{1});
        final long graceEnd = System.nanoTime() + graceNs;
        final boolean[] alive = new boolean[size];
        alive[rank] = true;
        while (true)
        {
            boolean settled = true;
            for (int r = 0; r < size; r++)
            {
                if (!alive[r] && !knownFailed[r])
                {
                    alive[r] = store.check(List.of(aliveKey(r)));
                    settled &= alive[r];
                }
            }
            if (settled || System.nanoTime() - graceEnd > 0)
            {
                break;
            }
            LockSupport.parkNanos(POLL_NS);
        }
        if (1 == store.add("decider", 1))
        {
            // Ranks that said alive after our own wait ended are taken too: the list is read from the store now.
            int count = 0;
            for (int r = 0; r < size; r++)
            {
                alive[r] = alive[r] || store.check(List.of(aliveKey(r)));
                count += alive[r] ? 1 : 0;
            }
            final ByteBuffer members = ByteBuffer.allocate(4 * count);
            for (int r = 0; r < size; r++)
            {
                if (alive[r])
                {
                    members.putInt(r);
                }
            }
            store.set("members", members.array());
        }
        final ByteBuffer decided = ByteBuffer.wrap(store.get("members", timeout));
        final int[] members = new int[decided.remaining() / 4];
        boolean included = false;
        for (int i = 0; i < members.length; i++)
        {
            members[i] = decided.getInt();
            included |= members[i] == rank;
        }
        if (!included)
        {
            throw new CollectiveException(CollectiveException.Reason.BOOTSTRAP, rank, -1, "rank " + rank +
                " was left out of the shrunk communicator: the survivors had agreed on " +
                java.util.Arrays.toString(members) + " before it joined (it came later than the grace period)", null);
        }
        return members;
    }

    private static String aliveKey(final int rank)
    {
        return "alive/" + rank;
    }
}
