package io.verbs4j.system;

/** {@link AbstractApiMisuseTest} over the tcp provider. */
class TcpApiMisuseTest extends AbstractApiMisuseTest
{
    @Override
    protected String provider()
    {
        return "tcp";
    }
}
