// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

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
