package io.verbs4j.system;

/** {@link AbstractApiMisuseTest} over the shm provider. */
class ShmApiMisuseTest extends AbstractApiMisuseTest
{
    @Override
    protected String provider()
    {
        return "shm";
    }
}
