// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.verbs4j.QpState;

/**
 * A {@link Peer} in a separate JVM process ({@link PeerMain}), driven over its stdin/stdout. The child gets the
 * test's class path and the JVM flags from the {@code verbs4j.test.jvmFlags} system property (set by Surefire).
 */
public final class RemotePeer implements Peer
{
    private final Process process;
    private final PrintStream commands;
    private final BufferedReader replies;
    private final long pid;

    /**
     * Starts the child and waits until its device is open.
     *
     * @param providerName provider.
     * @param properties   device properties for the child.
     */
    public RemotePeer(final String providerName, final Map<String, String> properties)
    {
        final List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        final String flags = System.getProperty("verbs4j.test.jvmFlags", "");
        for (final String flag : flags.trim().split("\\s+"))
        {
            if (!flag.isEmpty())
            {
                command.add(flag);
            }
        }
        command.add("-Xmx256m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(PeerMain.class.getName());
        command.add(providerName);
        properties.forEach((k, v) -> command.add(k + "=" + v));
        try
        {
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot start peer JVM: " + ex, ex);
        }
        commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        replies = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        final String ready = readLine();
        if (!ready.startsWith("READY "))
        {
            process.destroyForcibly();
            throw new IllegalStateException("peer JVM did not start: " + ready);
        }
        pid = Long.parseLong(ready.substring(6).trim());
    }

    /** @return the child's process id. */
    public long pid()
    {
        return pid;
    }

    /**
     * Kills the child with SIGKILL and waits for it to be gone.
     */
    public void kill()
    {
        process.destroyForcibly();
        try
        {
            process.waitFor(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** {@inheritDoc} */
    public String listen(final String uniqueName)
    {
        return call("LISTEN " + uniqueName);
    }

    /** {@inheritDoc} */
    public RegionInfo allocate(final long length, final int access, final boolean otherPd)
    {
        final String[] r = call("ALLOC " + length + " " + access + " " + otherPd).split(" ");
        return new RegionInfo(Integer.parseInt(r[0]), Long.parseLong(r[1]), Integer.parseInt(r[2]),
            Long.parseLong(r[3]));
    }

    /** {@inheritDoc} */
    public RegionInfo register(final int length, final int access)
    {
        final String[] r = call("REGISTER " + length + " " + access).split(" ");
        return new RegionInfo(Integer.parseInt(r[0]), Long.parseLong(r[1]), Integer.parseInt(r[2]),
            Long.parseLong(r[3]));
    }

    /** {@inheritDoc} */
    public void deregister(final int regionId)
    {
        call("DEREG " + regionId);
    }

    /** {@inheritDoc} */
    public void write(final int regionId, final long offset, final byte[] data)
    {
        call("WRITE " + regionId + " " + offset + " " + PeerMain.hex(data));
    }

    /** {@inheritDoc} */
    public byte[] read(final int regionId, final long offset, final int length)
    {
        return PeerMain.bytes(call("READ " + regionId + " " + offset + " " + length));
    }

    /** {@inheritDoc} */
    public long getLongVolatile(final int regionId, final long offset)
    {
        return Long.parseLong(call("GETLONG " + regionId + " " + offset));
    }

    /** {@inheritDoc} */
    public void acceptAsync(final int recvCount, final int recvSize, final int rnrRetry, final byte[] replyData)
    {
        call("ACCEPT " + recvCount + " " + recvSize + " " + rnrRetry + " " + PeerMain.hex(replyData));
    }

    /** {@inheritDoc} */
    public byte[] awaitAccepted(final long timeoutMs)
    {
        return PeerMain.bytes(call("AWAIT_ACCEPT " + timeoutMs));
    }

    /** {@inheritDoc} */
    public void postRecvs(final int count)
    {
        call("POST_RECV " + count);
    }

    /** {@inheritDoc} */
    public Completion[] pollRecv(final int count, final long timeoutMs)
    {
        final String[] r = call("POLL_RECV " + count + " " + timeoutMs).split(" ");
        final Completion[] out = new Completion[Integer.parseInt(r[0])];
        for (int i = 0; i < out.length; i++)
        {
            final String[] f = r[i + 1].split(",");
            out[i] = new Completion(Long.parseLong(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]),
                Integer.parseInt(f[3]), Integer.parseInt(f[4]), Integer.parseInt(f[5]), Integer.parseInt(f[6]));
        }
        return out;
    }

    /** {@inheritDoc} */
    public byte[] recvData(final long wrId, final int length)
    {
        return PeerMain.bytes(call("RECV_DATA " + wrId + " " + length));
    }

    /** {@inheritDoc} */
    public QpState qpState()
    {
        return QpState.valueOf(call("QP_STATE"));
    }

    /** {@inheritDoc} */
    public void closeQp()
    {
        call("CLOSE_QP");
    }

    /** {@inheritDoc} */
    public void startLocalAdds(final int regionId, final long offset, final int count)
    {
        call("LOCAL_ADDS " + regionId + " " + offset + " " + count);
    }

    /** {@inheritDoc} */
    public void awaitLocalAdds()
    {
        call("AWAIT_ADDS");
    }

    /** {@inheritDoc} */
    public String mixedAccept(final MixedSchedule.Limits limits, final long seed, final int rounds)
    {
        return call("MIX_ACCEPT " + limits.encode() + " " + seed + " " + rounds);
    }

    /** {@inheritDoc} */
    public void mixedRemote(final String info)
    {
        call("MIX_REMOTE " + info);
    }

    /** {@inheritDoc} */
    public void mixedStart(final int round)
    {
        call("MIX_START " + round);
    }

    /** {@inheritDoc} */
    public String mixedAwait(final long timeoutMs)
    {
        final String reply = call("MIX_AWAIT " + timeoutMs);
        return "PASS".equals(reply) ? null : reply.substring(reply.indexOf(' ') + 1);
    }

    /** {@inheritDoc} */
    public long[] mixedClose()
    {
        final String[] r = call("MIX_CLOSE").split(" ");
        return new long[] {Long.parseLong(r[0]), Long.parseLong(r[1])};
    }

    /** {@inheritDoc} */
    public void close()
    {
        if (process.isAlive())
        {
            try
            {
                call("EXIT");
                process.waitFor(10, TimeUnit.SECONDS);
            }
            catch (final RuntimeException | InterruptedException ex)
            {
                process.destroyForcibly();
            }
        }
        if (process.isAlive())
        {
            process.destroyForcibly();
        }
    }

    private synchronized String call(final String command)
    {
        commands.println(command);
        final String reply = readLine();
        if (reply.startsWith("OK"))
        {
            return reply.length() > 3 ? reply.substring(3) : "";
        }
        throw new IllegalStateException("peer failed '" + command.split(" ")[0] + "': " + reply);
    }

    private String readLine()
    {
        try
        {
            final String line = replies.readLine();
            if (null == line)
            {
                throw new IllegalStateException("peer JVM exited (exit code " +
                    (process.isAlive() ? "?" : process.exitValue()) + ")");
            }
            return line;
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("peer pipe failed: " + ex, ex);
        }
    }
}
