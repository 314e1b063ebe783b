// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.verbs4j.QpState;
import io.verbs4j.launch.ChildJvm;

/**
 * A {@link Peer} in a separate JVM process ({@link PeerMain}), driven over its stdin/stdout through a
 * {@link ChildJvm} (the test's class path, {@link io.verbs4j.launch.JvmFlags}, a timeout on every answer).
 */
public final class RemotePeer implements Peer
{
    private final ChildJvm child;

    /**
     * Starts the child and waits until its device is open.
     *
     * @param providerName provider.
     * @param properties   device properties for the child.
     */
    public RemotePeer(final String providerName, final Map<String, String> properties)
    {
        final List<String> args = new ArrayList<>();
        args.add(providerName);
        properties.forEach((k, v) -> args.add(k + "=" + v));
        child = new ChildJvm("conformance peer " + providerName, List.of("-Xmx256m"), PeerMain.class, args);
    }

    /** @return the child's process id. */
    public long pid()
    {
        return child.pid();
    }

    /**
     * Kills the child with SIGKILL and waits for it to be gone.
     */
    public void kill()
    {
        child.kill();
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
        return PeerMain.bytes(call("AWAIT_ACCEPT " + timeoutMs, timeoutMs));
    }

    /** {@inheritDoc} */
    public void postRecvs(final int count)
    {
        call("POST_RECV " + count);
    }

    /** {@inheritDoc} */
    public Completion[] pollRecv(final int count, final long timeoutMs)
    {
        final String[] r = call("POLL_RECV " + count + " " + timeoutMs, timeoutMs).split(" ");
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
        final String reply = call("MIX_AWAIT " + timeoutMs, timeoutMs);
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
        child.close();
    }

    private String call(final String command)
    {
        return child.call(command);
    }

    /** A command that itself waits up to {@code timeoutMs} gets that much longer for its answer. */
    private String call(final String command, final long timeoutMs)
    {
        return child.call(command, ChildJvm.CALL_TIMEOUT_MS + timeoutMs);
    }
}
