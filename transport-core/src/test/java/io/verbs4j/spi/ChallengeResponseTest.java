// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.nio.charset.StandardCharsets;

import io.verbs4j.config.ClusterSecret;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChallengeResponseTest
{
    private static final ClusterSecret SECRET =
        ClusterSecret.fromBytes("the-cluster-secret-0001".getBytes(StandardCharsets.UTF_8), "test");
    private static final ClusterSecret OTHER =
        ClusterSecret.fromBytes("the-cluster-secret-0002".getBytes(StandardCharsets.UTF_8), "test");

    @Test
    void shouldAcceptBothProofsWhenTheSecretsMatch()
    {
        final ChallengeResponse connector = new ChallengeResponse(SECRET, "test-v1");
        final ChallengeResponse acceptor = new ChallengeResponse(SECRET, "test-v1");
        final byte[] nc = ChallengeResponse.newNonce();
        final byte[] na = ChallengeResponse.newNonce();
        final byte[] pa = acceptor.proof(na, nc, ChallengeResponse.ROLE_ACCEPTOR);
        final byte[] pc = connector.proof(nc, na, ChallengeResponse.ROLE_CONNECTOR);
        assertEquals(ChallengeResponse.PROOF_LENGTH, pa.length);
        assertTrue(connector.verify(pa, na, nc, ChallengeResponse.ROLE_ACCEPTOR));
        assertTrue(acceptor.verify(pc, nc, na, ChallengeResponse.ROLE_CONNECTOR));
    }

    @Test
    void shouldRefuseAnotherSecretAnotherContextAReplayAReflectionAndGarbage()
    {
        final ChallengeResponse acceptor = new ChallengeResponse(SECRET, "test-v1");
        final byte[] nc = ChallengeResponse.newNonce();
        final byte[] na = ChallengeResponse.newNonce();
        final byte[] wrongSecret = new ChallengeResponse(OTHER, "test-v1").proof(nc, na,
            ChallengeResponse.ROLE_CONNECTOR);
        assertFalse(acceptor.verify(wrongSecret, nc, na, ChallengeResponse.ROLE_CONNECTOR));
        final byte[] wrongContext = new ChallengeResponse(SECRET, "test-v2").proof(nc, na,
            ChallengeResponse.ROLE_CONNECTOR);
        assertFalse(acceptor.verify(wrongContext, nc, na, ChallengeResponse.ROLE_CONNECTOR));
        final byte[] good = new ChallengeResponse(SECRET, "test-v1").proof(nc, na, ChallengeResponse.ROLE_CONNECTOR);
        final byte[] nextSessionNonce = ChallengeResponse.newNonce();
        assertFalse(acceptor.verify(good, nc, nextSessionNonce, ChallengeResponse.ROLE_CONNECTOR), "replay");
        final byte[] own = acceptor.proof(na, nc, ChallengeResponse.ROLE_ACCEPTOR);
        assertFalse(acceptor.verify(own, nc, na, ChallengeResponse.ROLE_CONNECTOR), "reflected proof");
        assertFalse(acceptor.verify(acceptor.proof(na, na.clone(), ChallengeResponse.ROLE_CONNECTOR), na, na,
            ChallengeResponse.ROLE_CONNECTOR), "echoed nonce");
        assertFalse(acceptor.verify(new byte[ChallengeResponse.PROOF_LENGTH], nc, na,
            ChallengeResponse.ROLE_CONNECTOR));
        assertFalse(acceptor.verify(new byte[3], nc, na, ChallengeResponse.ROLE_CONNECTOR));
        assertFalse(acceptor.verify(null, nc, na, ChallengeResponse.ROLE_CONNECTOR));
    }
}
