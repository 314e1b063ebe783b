// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.conformance;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

import io.verbs4j.config.CoreConfiguration;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.config.ThreadingMode;

/**
 * Child-JVM side of {@link RemotePeer}: reads one command per line on stdin, runs it on a {@link LocalPeer}, and
 * answers one line on stdout ({@code OK ...} or {@code ERR message}). Byte arrays travel as hex ({@code -} for
 * empty). Exits when stdin closes, so a dead test JVM never leaves it behind.
 * <p>
 * Arguments: provider name, then {@code name=value} device properties.
 */
public final class PeerMain
{
    private static final HexFormat HEX = HexFormat.of();

    private PeerMain()
    {
    }

    /**
     * @param args provider name, then properties.
     * @throws Exception on I/O failure of the pipe.
     */
    public static void main(final String[] args) throws Exception
    {
        final DeviceContext context = new DeviceContext();
        for (int i = 1; i < args.length; i++)
        {
            final int eq = args[i].indexOf('=');
            apply(context, args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        final LocalPeer peer = new LocalPeer(args[0], context);
        out.println("READY " + ProcessHandle.current().pid());
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)))
        {
            String line;
            while (null != (line = in.readLine()))
            {
                final String[] w = line.split(" ");
                try
                {
                    final String reply = run(peer, w);
                    out.println(null == reply ? "OK" : "OK " + reply);
                    if ("EXIT".equals(w[0]))
                    {
                        break;
                    }
                }
                catch (final Throwable ex)
                {
                    out.println("ERR " + String.valueOf(ex).replace('\n', ' '));
                }
            }
        }
        finally
        {
            peer.close();
        }
        System.exit(0);
    }

    private static String run(final LocalPeer peer, final String[] w)
    {
        switch (w[0])
        {
            case "LISTEN":
                return peer.listen(w[1]);
            case "ALLOC":
            {
                final Peer.RegionInfo r = peer.allocate(Long.parseLong(w[1]), Integer.parseInt(w[2]),
                    Boolean.parseBoolean(w[3]));
                return r.id() + " " + r.address() + " " + r.rkey() + " " + r.length();
            }
            case "REGISTER":
            {
                final Peer.RegionInfo r = peer.register(Integer.parseInt(w[1]), Integer.parseInt(w[2]));
                return r.id() + " " + r.address() + " " + r.rkey() + " " + r.length();
            }
            case "DEREG":
                peer.deregister(Integer.parseInt(w[1]));
                return null;
            case "WRITE":
                peer.write(Integer.parseInt(w[1]), Long.parseLong(w[2]), bytes(w[3]));
                return null;
            case "READ":
                return hex(peer.read(Integer.parseInt(w[1]), Long.parseLong(w[2]), Integer.parseInt(w[3])));
            case "GETLONG":
                return Long.toString(peer.getLongVolatile(Integer.parseInt(w[1]), Long.parseLong(w[2])));
            case "ACCEPT":
                peer.acceptAsync(Integer.parseInt(w[1]), Integer.parseInt(w[2]), Integer.parseInt(w[3]), bytes(w[4]));
                return null;
            case "AWAIT_ACCEPT":
                return hex(peer.awaitAccepted(Long.parseLong(w[1])));
            case "POST_RECV":
                peer.postRecvs(Integer.parseInt(w[1]));
                return null;
            case "POLL_RECV":
            {
                final Peer.Completion[] cs = peer.pollRecv(Integer.parseInt(w[1]), Long.parseLong(w[2]));
                final StringBuilder sb = new StringBuilder().append(cs.length);
                for (final Peer.Completion c : cs)
                {
                    sb.append(' ').append(c.wrId()).append(',').append(c.status()).append(',').append(c.opcode())
                        .append(',').append(c.byteLength()).append(',').append(c.immediate()).append(',')
                        .append(c.flags()).append(',').append(c.qpNumber());
                }
                return sb.toString();
            }
            case "RECV_DATA":
                return hex(peer.recvData(Long.parseLong(w[1]), Integer.parseInt(w[2])));
            case "QP_STATE":
                return peer.qpState().name();
            case "CLOSE_QP":
                peer.closeQp();
                return null;
            case "LOCAL_ADDS":
                peer.startLocalAdds(Integer.parseInt(w[1]), Long.parseLong(w[2]), Integer.parseInt(w[3]));
                return null;
            case "AWAIT_ADDS":
                peer.awaitLocalAdds();
                return null;
            case "MIX_ACCEPT":
                return peer.mixedAccept(MixedSchedule.Limits.decode(w[1]), Long.parseLong(w[2]),
                    Integer.parseInt(w[3]));
            case "MIX_REMOTE":
                peer.mixedRemote(w[1]);
                return null;
            case "MIX_START":
                peer.mixedStart(Integer.parseInt(w[1]));
                return null;
            case "MIX_AWAIT":
            {
                final String failure = peer.mixedAwait(Long.parseLong(w[1]));
                return null == failure ? "PASS" : "FAIL " + failure.replace('\n', ' ');
            }
            case "MIX_CLOSE":
            {
                final long[] counts = peer.mixedClose();
                return counts[0] + " " + counts[1];
            }
            case "EXIT":
                return null;
            default:
                throw new IllegalArgumentException("unknown command " + w[0]);
        }
    }

    /**
     * Sets one device property on a context. The peer timeout ({@link CoreConfiguration#PEER_TIMEOUT_PROP_NAME}, in
     * milliseconds) is a JVM-wide system property that a context takes only through its setter: it is mapped to that.
     *
     * @param context the context.
     * @param name    property name.
     * @param value   its value.
     */
    static void apply(final DeviceContext context, final String name, final String value)
    {
        if (CoreConfiguration.PEER_TIMEOUT_PROP_NAME.equals(name))
        {
            context.peerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(Long.parseLong(value)));
        }
        else if (CoreConfiguration.THREADING_MODE_PROP_NAME.equals(name))
        {
            context.threadingMode(ThreadingMode.parse(value));
        }
        else if (CoreConfiguration.PROGRESS_THREAD_PROP_NAME.equals(name))
        {
            // A core setting, not a provider property: as a property the context would ignore it.
            context.progressThread(Boolean.parseBoolean(value));
        }
        else
        {
            context.property(name, value);
        }
    }

    static String hex(final byte[] data)
    {
        return 0 == data.length ? "-" : HEX.formatHex(data);
    }

    static byte[] bytes(final String hex)
    {
        return "-".equals(hex) ? new byte[0] : HEX.parseHex(hex);
    }
}
