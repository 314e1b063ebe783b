// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.link;

/** The {@link Links} of a one-rank communicator: no peers, nothing to poll. */
public final class SoloLinks implements Links
{
    /** {@inheritDoc} */
    public int rank()
    {
        return 0;
    }

    /** {@inheritDoc} */
    public int size()
    {
        return 1;
    }

    /** {@inheritDoc} */
    public PeerLink link(final int rank)
    {
        throw new IllegalArgumentException("a one-rank communicator has no peers");
    }

    /** {@inheritDoc} */
    public int poll()
    {
        return 0;
    }

    /** {@inheritDoc} */
    public void scan()
    {
    }

    /** {@inheritDoc} */
    public int failedPeer()
    {
        return -1;
    }

    /** {@inheritDoc} */
    public String failureReason()
    {
        return null;
    }

    /** {@inheritDoc} */
    public void breakAll(final int culprit)
    {
    }

    /** {@inheritDoc} */
    public void close()
    {
    }
}
