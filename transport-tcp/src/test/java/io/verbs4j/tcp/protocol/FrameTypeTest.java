// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

/**
 * The frame-type classes the connection routes by: every valid type is exactly one of request, response, handshake,
 * DISCONNECT or HEARTBEAT, and no invalid type is any of them.
 */
class FrameTypeTest
{
    @Test
    void shouldPutEveryValidTypeInExactlyOneClass()
    {
        for (int type = FrameType.SEND; type <= FrameType.MAX_TYPE; type++)
        {
            final int classes = (FrameType.isRequest(type) ? 1 : 0) + (FrameType.isResponse(type) ? 1 : 0) +
                (FrameType.isHandshake(type) ? 1 : 0) + (FrameType.DISCONNECT == type ? 1 : 0) +
                (FrameType.HEARTBEAT == type ? 1 : 0);
            assertEquals(1, classes, FrameType.name(type));
        }
    }

    @Test
    void shouldClassifyNoInvalidType()
    {
        for (final int type : new int[]{0, FrameType.MAX_TYPE + 1, 127, -1})
        {
            assertFalse(FrameType.isValid(type), Integer.toString(type));
            assertFalse(FrameType.isRequest(type) || FrameType.isResponse(type) || FrameType.isHandshake(type),
                Integer.toString(type));
        }
    }
}
