// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.collectives.rendezvous;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A store kept in a directory that all ranks on one host (or on a shared file system with atomic rename) can see;
 * works across processes (Gloo's FileStore, PyTorch's FileStore).
 *
 * <p>Each key is one file. Writes go to a temporary file in the same directory that is then renamed over the
 * key's file, so readers see either the old or the new value, never a torn one. Waiters poll with exponential
 * backoff from 1 ms to {@value #MAX_POLL_INTERVAL_MS} ms. {@link #add} serialises read-modify-write with a lock
 * file ({@value #LOCK_FILE_NAME}) plus a JVM-wide monitor, because file locks are held per process.
 *
 * <p>Key file names are {@code k_} plus the key with every byte outside {@code [A-Za-z0-9._-]} written as
 * {@code %XX}; keys whose escaped name would exceed {@value #MAX_FILE_NAME_LENGTH} characters use {@code h_} plus
 * the SHA-256 of the key. {@link #close()} does not delete the directory: it is shared, and its owner (for
 * example {@code LoopbackCluster}) removes it.
 */
public final class FileStore implements RendezvousStore
{
    /** Name of the lock file that serialises {@link #add} across processes. */
    public static final String LOCK_FILE_NAME = ".add.lock";
    /** Upper bound of the polling interval while waiting for keys. */
    public static final long MAX_POLL_INTERVAL_MS = 32;
    /** Longest file name this store creates (below the usual 255-byte limit). */
    public static final int MAX_FILE_NAME_LENGTH = 200;

    /** File locks belong to the process, so threads of one JVM must also exclude each other. */
    private static final Object JVM_ADD_MONITOR = new Object();

    private final Path directory;
    private volatile boolean closed;

    /**
     * Opens (creating if needed) a store in {@code directory}.
     *
     * @param directory the shared directory.
     * @throws IllegalArgumentException if the path exists and is not a directory, or cannot be created.
     */
    public FileStore(final Path directory)
    {
        if (null == directory)
        {
            throw new IllegalArgumentException("FileStore directory must not be null");
        }
        try
        {
            this.directory = Files.createDirectories(directory);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("cannot use " + directory + " as a FileStore directory (" + ex +
                "); pass a writable directory path", ex);
        }
    }

    /**
     * The directory this store lives in.
     *
     * @return the directory path.
     */
    public Path directory()
    {
        return directory;
    }

    /** {@inheritDoc} */
    @Override
    public void set(final String key, final byte[] value)
    {
        StoreArguments.key(key);
        StoreArguments.value(value);
        ensureOpen();
        writeAtomically(fileOf(key), value);
    }

    /** {@inheritDoc} */
    @Override
    public byte[] get(final String key, final Duration timeout)
    {
        StoreArguments.key(key);
        StoreArguments.timeout(timeout);
        final long deadlineNs = System.nanoTime() + StoreArguments.timeoutNs(timeout);
        long sleepMs = 1;
        while (true)
        {
            ensureOpen();
            final byte[] value = read(fileOf(key));
            if (null != value)
            {
                return value;
            }
            sleepMs = backoff(deadlineNs, sleepMs, List.of(key), timeout);
        }
    }

    /** {@inheritDoc} */
    @Override
    public void waitFor(final Collection<String> keys, final Duration timeout)
    {
        StoreArguments.keys(keys);
        StoreArguments.timeout(timeout);
        final long deadlineNs = System.nanoTime() + StoreArguments.timeoutNs(timeout);
        long sleepMs = 1;
        while (true)
        {
            ensureOpen();
            final List<String> missing = missing(keys);
            if (missing.isEmpty())
            {
                return;
            }
            sleepMs = backoff(deadlineNs, sleepMs, missing, timeout);
        }
    }

    /** {@inheritDoc} */
    @Override
    public long add(final String key, final long delta)
    {
        StoreArguments.key(key);
        ensureOpen();
        final Path file = fileOf(key);
        synchronized (JVM_ADD_MONITOR)
        {
            try (FileChannel channel = FileChannel.open(
                directory.resolve(LOCK_FILE_NAME), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock ignored = channel.lock())
            {
                final byte[] current = read(file);
                final long updated = (null == current ? 0 : StoreArguments.decodeCounter(key, current)) + delta;
                writeAtomically(file, StoreArguments.encodeCounter(updated));
                return updated;
            }
            catch (final IOException ex)
            {
                throw new RendezvousException("FileStore " + directory + ": cannot lock for add(" + key + ")", ex);
            }
        }
    }

    /** {@inheritDoc} */
    @Override
    public boolean check(final Collection<String> keys)
    {
        StoreArguments.keys(keys);
        ensureOpen();
        return missing(keys).isEmpty();
    }

    /** {@inheritDoc} */
    @Override
    public boolean delete(final String key)
    {
        StoreArguments.key(key);
        ensureOpen();
        try
        {
            return Files.deleteIfExists(fileOf(key));
        }
        catch (final IOException ex)
        {
            throw new RendezvousException("FileStore " + directory + ": cannot delete key " + key, ex);
        }
    }

    /** {@inheritDoc} */
    @Override
    public void close()
    {
        closed = true;
    }

    /**
     * The file that holds {@code key}; exposed for tests and tooling that inspect a store directory.
     *
     * @param key a valid key.
     * @return the path of the key's file inside {@link #directory()}.
     */
    public Path fileOf(final String key)
    {
        final byte[] utf8 = StoreArguments.key(key).getBytes(StandardCharsets.UTF_8);
        final StringBuilder name = new StringBuilder("k_");
        for (final byte b : utf8)
        {
            final int c = b & 0xFF;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '_' || c == '-')
            {
                name.append((char)c);
            }
            else
            {
                name.append('%').append(Character.toUpperCase(Character.forDigit(c >>> 4, 16)))
                    .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            }
        }
        return directory.resolve(name.length() <= MAX_FILE_NAME_LENGTH ? name.toString() : "h_" + sha256(utf8));
    }

    private List<String> missing(final Collection<String> keys)
    {
        final List<String> missing = new ArrayList<>();
        for (final String key : keys)
        {
            if (!Files.exists(fileOf(key)))
            {
                missing.add(key);
            }
        }
        return missing;
    }

    private byte[] read(final Path file)
    {
        try
        {
            return Files.readAllBytes(file);
        }
        catch (final NoSuchFileException ex)
        {
            return null;
        }
        catch (final IOException ex)
        {
            throw new RendezvousException("FileStore " + directory + ": cannot read " + file.getFileName(), ex);
        }
    }

    private void writeAtomically(final Path target, final byte[] value)
    {
        // Temporary names start with '.', key files with "k_" or "h_": the two never collide.
        final Path temp = directory.resolve(".tmp-" + UUID.randomUUID());
        try
        {
            Files.write(temp, value, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (final AtomicMoveNotSupportedException ex)
        {
            throw new RendezvousException("FileStore " + directory + " is on a file system without atomic rename; " +
                "use a local directory or a TcpStore", ex);
        }
        catch (final IOException ex)
        {
            throw new RendezvousException("FileStore " + directory + ": cannot write " + target.getFileName(), ex);
        }
        finally
        {
            try
            {
                Files.deleteIfExists(temp);
            }
            catch (final IOException ignored)
            {
                // Best effort: a leftover temp file is harmless and goes with the directory.
            }
        }
    }

    private static long backoff(
        final long deadlineNs, final long sleepMs, final List<String> missing, final Duration timeout)
    {
        final long remainingNs = deadlineNs - System.nanoTime();
        if (remainingNs <= 0)
        {
            throw new RendezvousTimeoutException(missing, timeout);
        }
        try
        {
            Thread.sleep(Math.max(1, Math.min(sleepMs, TimeUnit.NANOSECONDS.toMillis(remainingNs))));
        }
        catch (final InterruptedException ex)
        {
            throw StoreArguments.interrupted("waiting for keys " + missing, ex);
        }
        return Math.min(sleepMs * 2, MAX_POLL_INTERVAL_MS);
    }

    private static String sha256(final byte[] bytes)
    {
        try
        {
            final byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
            final StringBuilder hex = new StringBuilder(64);
            for (final byte b : digest)
            {
                hex.append(Character.forDigit((b >>> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
            }
            return hex.toString();
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("SHA-256 is required by every Java platform", ex);
        }
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("FileStore " + directory + " is closed");
        }
    }
}
