// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.verbs4j.ConnectionException;

/**
 * A parsed {@code tcp://host:port} endpoint. IPv6 literals go in brackets ({@code tcp://[::1]:7000}); the wildcard
 * hosts are {@code 0.0.0.0}, {@code [::]}, {@code *} and the empty host.
 */
final class TcpEndpoint
{
    /** The URI scheme. */
    static final String SCHEME = "tcp://";

    private final String host;
    private final int port;

    private TcpEndpoint(final String host, final int port)
    {
        this.host = host;
        this.port = port;
    }

    /**
     * @param endpoint the text.
     * @return the endpoint.
     * @throws ConnectionException if malformed.
     */
    static TcpEndpoint parse(final String endpoint)
    {
        if (null == endpoint || !endpoint.startsWith(SCHEME))
        {
            throw new ConnectionException("malformed endpoint '" + endpoint + "'; expected tcp://host:port");
        }
        final String rest = endpoint.substring(SCHEME.length());
        final int colon = rest.lastIndexOf(':');
        if (colon < 0 || (rest.startsWith("[") && rest.lastIndexOf(']') > colon))
        {
            throw new ConnectionException("endpoint '" + endpoint + "' has no port; expected tcp://host:port");
        }
        String host = rest.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]"))
        {
            host = host.substring(1, host.length() - 1);
        }
        final int port;
        try
        {
            port = Integer.parseInt(rest.substring(colon + 1));
        }
        catch (final NumberFormatException ex)
        {
            throw new ConnectionException("endpoint '" + endpoint + "' has a bad port", ex);
        }
        if (port < 0 || port > 65535)
        {
            throw new ConnectionException("endpoint '" + endpoint + "' has a port out of range");
        }
        return new TcpEndpoint(host, port);
    }

    /**
     * @param host a host (IPv6 without brackets).
     * @param port a port.
     * @return the endpoint text.
     */
    static String format(final String host, final int port)
    {
        return SCHEME + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    String host()
    {
        return host;
    }

    int port()
    {
        return port;
    }

    boolean isWildcard()
    {
        return host.isEmpty() || "*".equals(host) || "0.0.0.0".equals(host) || "::".equals(host);
    }
}
