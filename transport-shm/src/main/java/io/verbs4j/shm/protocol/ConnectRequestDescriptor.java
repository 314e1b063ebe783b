// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shm.protocol;

/**
 * A connection request in a listener's ring: who connects, where its connection segment is, and its private data.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                          Version                              |  0
 *  +---------------------------------------------------------------+
 *  |                     Connector QP number                       |  4
 *  +---------------------------------------------------------------+
 *  |                  Connector PID (64 bits)                      |  8
 *  +---------------------------------------------------------------+
 *  |               Connector device id (64 bits)                   | 16
 *  +---------------------------------------------------------------+
 *  |  Connection id (64 bits): names the connection segment file   | 24
 *  +---------------------------------------------------------------+
 *  |                 Private data length                           | 32
 *  +---------------------------------------------------------------+
 *  |                          Reserved                             | 36
 *  +---------------------------------------------------------------+
 *  |                 Private data (length bytes)                   | 40
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class ConnectRequestDescriptor
{
    /** Record type of a connection request. */
    public static final int TYPE_CONNECT = 1;

    /** Offset of the version. */
    public static final int VERSION_OFFSET = 0;
    /** Offset of the connector's QP number. */
    public static final int QPN_OFFSET = 4;
    /** Offset of the connector's pid. */
    public static final int PID_OFFSET = 8;
    /** Offset of the connector's device id. */
    public static final int DEVICE_ID_OFFSET = 16;
    /** Offset of the connection id. */
    public static final int CONNECTION_ID_OFFSET = 24;
    /** Offset of the private data length. */
    public static final int PRIVATE_DATA_LENGTH_OFFSET = 32;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 40;

    private ConnectRequestDescriptor()
    {
    }
}
