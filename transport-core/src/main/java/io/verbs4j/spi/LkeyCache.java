// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

/**
 * The region of the last lkey one posting thread resolved, so that a queue posted again and again from the same
 * buffer skips the key table's hash lookup (a tenth of an 8-64 B WRITE's post on shm). As strict as the table: a
 * cached region is returned only while it is open, and a region is closed before its keys leave the table
 * ({@link AbstractMemoryRegion#close()}), so a deregistered region is never found through the cache.
 * <p>
 * Threading: one per queue of a queue pair, used by that queue's single posting thread only.
 */
final class LkeyCache
{
    private final KeyTable keys;
    private AbstractMemoryRegion region;

    /**
     * @param keys the protection domain's key table.
     */
    LkeyCache(final KeyTable keys)
    {
        this.keys = keys;
    }

    /**
     * @param key a local key.
     * @return the open region with that key, or null (as {@link KeyTable#byLkey(int)}).
     */
    AbstractMemoryRegion byLkey(final int key)
    {
        final AbstractMemoryRegion last = region;
        // The region's own key, not a second field: a key and a region can never come from two different lookups.
        if (null != last && key == last.lkey() && last.isOpen())
        {
            return last;
        }
        final AbstractMemoryRegion found = keys.byLkey(key);
        if (null != found)
        {
            region = found;
        }
        return found;
    }
}
