// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

/**
 * Queue-pair states of the verbs state machine ({@code enum ibv_qp_state}, without the SQD/SQE states).
 * <pre>
 *  RESET --modify--&gt; INIT --connect/accept--&gt; RTR --&gt; RTS
 *    ^                                                     |
 *    +------ modify(RESET) ------ ERROR &lt;--- any error ----+
 * </pre>
 * Receives may be posted from INIT on (so they are ready before the peer's first SEND); sends only in RTS. In ERROR
 * every posted request completes with {@link WcStatus#WR_FLUSH_ERR}.
 */
public enum QpState
{
    /** Created, not usable. */
    RESET,
    /** Initialised: receives may be posted. */
    INIT,
    /** Ready to receive: connected to a peer. */
    RTR,
    /** Ready to send: fully operational. */
    RTS,
    /** Failed or disconnected: everything flushes. */
    ERROR
}
