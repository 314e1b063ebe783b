// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.bench.launch;

/**
 * The one-line readiness handshake a peer process writes to its standard output once it accepts connections:
 * <pre>
 * VERBS4J-READY &lt;endpoint&gt;
 * </pre>
 * The endpoint is opaque to the launcher; for the perftest server it is {@code host:port} of the control listener.
 */
public final class ReadySignal
{
    /** Prefix of the readiness line. */
    public static final String PREFIX = "VERBS4J-READY ";

    private ReadySignal()
    {
    }

    /**
     * Formats the readiness line.
     *
     * @param endpoint where the peer can be reached; must be non-empty and contain no line break.
     * @return the line, without a line terminator.
     */
    public static String format(final String endpoint)
    {
        if (endpoint.isBlank() || endpoint.indexOf('\n') >= 0 || endpoint.indexOf('\r') >= 0)
        {
            throw new IllegalArgumentException("invalid endpoint: '" + endpoint + "'");
        }
        return PREFIX + endpoint;
    }

    /**
     * Extracts the endpoint from a line of the peer's output.
     *
     * @param line one line of output.
     * @return the endpoint, or {@code null} when the line is not a readiness line.
     */
    public static String parse(final String line)
    {
        if (null == line || !line.startsWith(PREFIX))
        {
            return null;
        }
        final String endpoint = line.substring(PREFIX.length()).trim();
        return endpoint.isEmpty() ? null : endpoint;
    }
}
