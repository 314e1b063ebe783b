// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.KeyStore;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;

/**
 * The TLS contexts of a device ({@link TcpConfiguration#TLS_PROP_NAME}): built once when the device opens from the
 * PKCS12 key and trust stores, JDK provider, TLS 1.3 or 1.2, mutual authentication required (a listener refuses a
 * peer without a certificate its trust store accepts, and so does a connector). Peers are identified by their
 * certificates' trust chain, not by host name (endpoints are often addresses).
 */
final class TcpTls
{
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private final SslContext server;
    private final SslContext client;

    private TcpTls(final SslContext server, final SslContext client)
    {
        this.server = server;
        this.client = client;
    }

    /**
     * @param configuration the device's settings, with TLS on.
     * @return the contexts.
     * @throws IllegalArgumentException if a store cannot be read or its password is wrong.
     */
    static TcpTls of(final TcpConfiguration configuration)
    {
        try
        {
            final char[] keyPassword = configuration.tlsKeyStorePassword().toCharArray();
            final KeyStore keyStore = load(configuration.tlsKeyStore(), keyPassword);
            final KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(keyStore, keyPassword);
            final KeyStore trustStore = load(configuration.tlsTrustStore(),
                configuration.tlsTrustStorePassword().toCharArray());
            final TrustManagerFactory trust = TrustManagerFactory.getInstance(
                TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trustStore);
            final SslContext server = SslContextBuilder.forServer(keys).trustManager(trust)
                .clientAuth(ClientAuth.REQUIRE).sslProvider(SslProvider.JDK).protocols(PROTOCOLS).build();
            final SslContext client = SslContextBuilder.forClient().keyManager(keys).trustManager(trust)
                .endpointIdentificationAlgorithm(null).sslProvider(SslProvider.JDK).protocols(PROTOCOLS).build();
            return new TcpTls(server, client);
        }
        catch (final IOException | GeneralSecurityException ex)
        {
            throw new IllegalArgumentException("cannot set up TLS from " + TcpConfiguration.TLS_KEYSTORE_PROP_NAME +
                "=" + configuration.tlsKeyStore() + " and " + TcpConfiguration.TLS_TRUSTSTORE_PROP_NAME + "=" +
                configuration.tlsTrustStore() + ": " + ex.getMessage(), ex);
        }
    }

    private static KeyStore load(final String path, final char[] password)
        throws IOException, GeneralSecurityException
    {
        final KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(Paths.get(path)))
        {
            store.load(in, password);
        }
        return store;
    }

    /**
     * @param allocator  the channel's allocator.
     * @param clientSide true for a connector.
     * @return a new handler for one channel, first in its pipeline.
     */
    SslHandler newHandler(final ByteBufAllocator allocator, final boolean clientSide)
    {
        return (clientSide ? client : server).newHandler(allocator);
    }

    /**
     * @param cause an exception that reached a connection.
     * @return true if it is a TLS failure (an {@link SSLException} anywhere in its chain of causes).
     */
    static boolean isFailure(final Throwable cause)
    {
        for (Throwable t = cause; null != t; t = t.getCause() == t ? null : t.getCause())
        {
            if (t instanceof SSLException)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @param cause a handshake failure.
     * @return a one-line description (the root cause's message).
     */
    static String describe(final Throwable cause)
    {
        Throwable root = cause;
        while (null != root.getCause() && root.getCause() != root)
        {
            root = root.getCause();
        }
        if (root instanceof java.nio.channels.ClosedChannelException)
        {
            return "the peer closed the connection (does it have TLS on?)";
        }
        if (null == root.getMessage())
        {
            return root.getClass().getSimpleName();
        }
        return root instanceof SSLException || root == cause ? root.getMessage() :
            root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
