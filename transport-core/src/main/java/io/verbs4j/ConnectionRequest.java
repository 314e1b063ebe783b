// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

/**
 * An incoming connection request. Exactly one of {@link #accept} or {@link #reject} must be called; a request not
 * answered within the connector's timeout fails on the connector's side.
 */
public interface ConnectionRequest
{
    /** @return the private data the connector sent. */
    byte[] privateData();

    /** @return a description of the connecting peer (for logs). */
    String peer();

    /**
     * Accepts, connecting {@code qp} (RESET or INIT) to the connector's queue pair and moving it to RTS.
     *
     * @param qp          the local queue pair.
     * @param privateData bytes returned to the connector, may be empty or null.
     * @throws ConnectionException if the connector has gone meanwhile.
     */
    void accept(QueuePair qp, byte[] privateData);

    /**
     * Rejects; the connector's {@code connect} throws a {@link ConnectionException} carrying {@code reason}.
     *
     * @param reason a short reason, may be empty or null.
     */
    void reject(String reason);
}
