// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

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
