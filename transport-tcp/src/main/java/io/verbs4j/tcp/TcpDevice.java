package io.verbs4j.tcp;

import io.verbs4j.Capabilities;
import io.verbs4j.ConnectionManager;
import io.verbs4j.config.DeviceContext;
import io.verbs4j.spi.AbstractDevice;
import io.verbs4j.spi.AbstractProtectionDomain;
import io.verbs4j.spi.Progress;

/**
 * A device of the tcp provider: its I/O threads, connection manager and counters. Open it with
 * {@code Verbs.open("tcp")}; cast to read the {@link #counter(TcpCounter) counters}.
 * <p>
 * Progress: the I/O threads do all the work (sending, serving READs and atomics, placing payloads, completing), so
 * polling a completion queue drives nothing extra ({@link Progress#NONE}); the {@code progressThread} setting of
 * the context has no effect on this provider.
 */
public final class TcpDevice extends AbstractDevice
{
    /** What the tcp provider supports: the whole verbs contract, without one-sided offload. */
    public static final Capabilities CAPABILITIES = new Capabilities(
        Capabilities.MSG | Capabilities.RMA_WRITE | Capabilities.RMA_READ | Capabilities.WRITE_IMM |
        Capabilities.ATOMIC | Capabilities.INLINE,
        Integer.MAX_VALUE,
        16,
        256,
        16384,
        1 << 20,
        1L << 40,
        TcpConfiguration.MAX_PRIVATE_DATA_LENGTH);

    private final TcpConfiguration configuration;
    private final TcpCounters counters = new TcpCounters();
    private final TcpEventLoops eventLoops;
    private final TcpConnectionManager connectionManager;

    TcpDevice(final DeviceContext context)
    {
        super(TcpTransportProvider.NAME, CAPABILITIES, context);
        this.configuration = TcpConfiguration.of(context);
        this.eventLoops = new TcpEventLoops(configuration);
        this.connectionManager = new TcpConnectionManager(this);
    }

    /** {@inheritDoc} */
    public ConnectionManager connectionManager()
    {
        return connectionManager;
    }

    /**
     * @param counter a counter.
     * @return its current value.
     */
    public long counter(final TcpCounter counter)
    {
        return counters.get(counter);
    }

    /** @return the counters. */
    public TcpCounters counters()
    {
        return counters;
    }

    /** @return the settings in force. */
    public TcpConfiguration configuration()
    {
        return configuration;
    }

    /** @return true when the I/O threads use epoll (false: NIO). */
    public boolean isEpoll()
    {
        return eventLoops.isEpoll();
    }

    TcpEventLoops eventLoops()
    {
        return eventLoops;
    }

    /** {@inheritDoc} */
    protected AbstractProtectionDomain newProtectionDomain()
    {
        return new TcpProtectionDomain(this);
    }

    /** {@inheritDoc} */
    protected Progress progress()
    {
        return Progress.NONE;
    }

    /** {@inheritDoc} */
    protected void onClose()
    {
        connectionManager.close();
        eventLoops.shutdown();
    }
}
