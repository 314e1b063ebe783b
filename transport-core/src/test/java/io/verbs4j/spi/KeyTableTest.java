// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import io.verbs4j.Access;
import io.verbs4j.WcStatus;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

class KeyTableTest
{
    private static AbstractMemoryRegion region(final KeyTable keys, final long address, final int access)
    {
        final RegionMemory memory = RegionMemory.contiguous(0, 4096, null);
        return new AbstractMemoryRegion(null, memory, address, keys.newKey(), keys.newKey(), access)
        {
            protected void release()
            {
            }
        };
    }

    @Test
    void shouldCheckKeyThenAccessThenBounds()
    {
        final KeyTable keys = new KeyTable();
        final AbstractMemoryRegion r = region(keys, 1 << 20, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        keys.add(r);
        assertSame(r, keys.verifyRemote(r.rkey(), r.address(), 4096, Access.REMOTE_WRITE));
        assertSame(r, keys.verifyRemote(r.rkey(), r.address() + 4000, 96, Access.REMOTE_WRITE));
        assertNull(keys.verifyRemote(r.rkey() + 1, r.address(), 8, Access.REMOTE_WRITE));
        assertNull(keys.verifyRemote(r.rkey(), r.address(), 8, Access.REMOTE_READ));
        assertNull(keys.verifyRemote(r.rkey(), r.address() + 4090, 8, Access.REMOTE_WRITE));
        assertNull(keys.verifyRemote(r.rkey(), r.address() - 1, 8, Access.REMOTE_WRITE));
        assertNull(keys.verifyRemote(r.rkey(), r.address(), -1, Access.REMOTE_WRITE));
        assertEquals(WcStatus.REM_ACCESS_ERR, r.checkRemote(Long.MAX_VALUE, 8, Access.REMOTE_WRITE));
        assertSame(r, keys.byLkey(r.lkey()));
        assertNull(keys.byRkey(r.lkey()), "an lkey is not an rkey");
        keys.remove(r);
        assertNull(keys.verifyRemote(r.rkey(), r.address(), 8, Access.REMOTE_WRITE));
        assertNotEquals(r.lkey(), r.rkey());
    }
}
