// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.control;

import io.verbs4j.bench.spi.SessionSpec;
import io.verbs4j.bench.spi.TestKind;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * The perftest control connection between initiator (client) and responder (server), a TCP stream of
 * {@link java.io.DataOutput} values:
 * <pre>
 * client: HELLO   = int MAGIC, int VERSION
 * server: HELLO   = int MAGIC, int VERSION, UTF hostName
 * then, per session:
 * client: SESSION = byte SESSION, spec (see {@link #writeSpec})
 * server: byte ACCEPTED, UTF endpoint           | byte REJECTED, UTF reason
 * client: byte END, boolean ok                  (after its last iteration, or on failure; ok=false aborts)
 * server: byte DONE, boolean ok, UTF message,   (after the responder finished or was aborted)
 *         long compileMillis                     (the server JVM's JIT time so far, for the client's warm-up)
 * and finally:
 * client: byte QUIT                             (the server exits)
 * </pre>
 * The version comes first so a mismatched peer fails at HELLO with a clear message.
 */
public final class ControlProtocol
{
    /** "V4JB". */
    public static final int MAGIC = 0x56344A42;
    /** Protocol version; bump on any change above. */
    public static final int VERSION = 2;

    /** Client asks for a session. */
    public static final byte SESSION = 1;
    /** Server accepted; the endpoint follows. */
    public static final byte ACCEPTED = 2;
    /** Server refused; the reason follows. */
    public static final byte REJECTED = 3;
    /** Client finished its side of the session. */
    public static final byte END = 4;
    /** Server finished its side of the session. */
    public static final byte DONE = 5;
    /** Client is done with the server. */
    public static final byte QUIT = 6;

    private ControlProtocol()
    {
    }

    /**
     * Writes a session spec.
     *
     * @param out  destination.
     * @param spec the spec.
     * @throws IOException on failure.
     */
    public static void writeSpec(final DataOutput out, final SessionSpec spec) throws IOException
    {
        out.writeUTF(spec.transport());
        out.writeUTF(spec.kind().shortName());
        out.writeInt(spec.messageBytes());
        out.writeLong(spec.warmup());
        out.writeLong(spec.iterations());
        out.writeInt(spec.window());
        out.writeBoolean(spec.busyPoll());
        out.writeLong(spec.timeoutMs());
    }

    /**
     * Reads a session spec written by {@link #writeSpec}.
     *
     * @param in source.
     * @return the spec.
     * @throws IOException on failure or an invalid spec.
     */
    public static SessionSpec readSpec(final DataInput in) throws IOException
    {
        try
        {
            return new SessionSpec(
                in.readUTF(),
                TestKind.ofShortName(in.readUTF()),
                in.readInt(),
                in.readLong(),
                in.readLong(),
                in.readInt(),
                in.readBoolean(),
                in.readLong());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IOException("invalid session spec: " + ex.getMessage(), ex);
        }
    }

    /**
     * Checks the peer's magic and version.
     *
     * @param magic   received magic.
     * @param version received version.
     * @throws IOException if either differs from ours.
     */
    public static void verifyHello(final int magic, final int version) throws IOException
    {
        if (MAGIC != magic)
        {
            throw new IOException("peer is not a verbs4j perftest endpoint (bad magic " + Integer.toHexString(magic) +
                ")");
        }
        if (VERSION != version)
        {
            throw new IOException("control protocol version mismatch: peer " + version + ", local " + VERSION);
        }
    }
}
