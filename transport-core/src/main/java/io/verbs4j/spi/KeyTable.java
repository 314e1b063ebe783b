// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.security.SecureRandom;

import org.agrona.collections.Int2ObjectHashMap;

/**
 * The regions of one protection domain, found by lkey (local SGE checks) or rkey (remote checks), with keys drawn
 * from a {@link SecureRandom} so they cannot be guessed. Lookups are lock-free and allocation-free (copy-on-write
 * maps behind a volatile reference); registration is the rare, synchronized path.
 */
public final class KeyTable
{
    private static final SecureRandom RANDOM = new SecureRandom();

    private volatile Int2ObjectHashMap<AbstractMemoryRegion> byLkey = new Int2ObjectHashMap<>();
    private volatile Int2ObjectHashMap<AbstractMemoryRegion> byRkey = new Int2ObjectHashMap<>();

    /**
     * @return a random non-zero key not in use in this table as an lkey or an rkey.
     */
    public synchronized int newKey()
    {
        while (true)
        {
            final int key = RANDOM.nextInt();
            if (0 != key && !byLkey.containsKey(key) && !byRkey.containsKey(key))
            {
                return key;
            }
        }
    }

    /**
     * @param region a new region whose keys came from {@link #newKey()}.
     */
    public synchronized void add(final AbstractMemoryRegion region)
    {
        final Int2ObjectHashMap<AbstractMemoryRegion> lkeys = new Int2ObjectHashMap<>(byLkey);
        final Int2ObjectHashMap<AbstractMemoryRegion> rkeys = new Int2ObjectHashMap<>(byRkey);
        lkeys.put(region.lkey(), region);
        rkeys.put(region.rkey(), region);
        byLkey = lkeys;
        byRkey = rkeys;
    }

    /**
     * @param region a region to forget; its keys stop resolving at once.
     */
    public synchronized void remove(final AbstractMemoryRegion region)
    {
        final Int2ObjectHashMap<AbstractMemoryRegion> lkeys = new Int2ObjectHashMap<>(byLkey);
        final Int2ObjectHashMap<AbstractMemoryRegion> rkeys = new Int2ObjectHashMap<>(byRkey);
        lkeys.remove(region.lkey());
        rkeys.remove(region.rkey());
        byLkey = lkeys;
        byRkey = rkeys;
    }

    /**
     * @param lkey a local key.
     * @return the open region with that key, or null.
     */
    public AbstractMemoryRegion byLkey(final int lkey)
    {
        final AbstractMemoryRegion region = byLkey.get(lkey);
        return null != region && region.isOpen() ? region : null;
    }

    /**
     * @param rkey a remote key.
     * @return the open region with that key, or null.
     */
    public AbstractMemoryRegion byRkey(final int rkey)
    {
        final AbstractMemoryRegion region = byRkey.get(rkey);
        return null != region && region.isOpen() ? region : null;
    }

    /**
     * The whole target-side check of a one-sided request: key lookup, then access bits, then bounds.
     *
     * @param rkey           the remote key in the request.
     * @param address        requested start.
     * @param length         requested length.
     * @param requiredAccess the {@link io.verbs4j.Access} bit needed.
     * @return the region if every check passes, else null (the caller reports REM_ACCESS_ERR).
     */
    public AbstractMemoryRegion verifyRemote(
        final int rkey, final long address, final long length, final int requiredAccess)
    {
        final AbstractMemoryRegion region = byRkey(rkey);
        if (null == region || io.verbs4j.WcStatus.SUCCESS != region.checkRemote(address, length, requiredAccess))
        {
            return null;
        }
        return region;
    }

    /** @return the number of regions. */
    public int size()
    {
        return byLkey.size();
    }
}
