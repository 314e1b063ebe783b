// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.tcp;

import io.verbs4j.config.ClusterSecret;
import io.verbs4j.spi.ChallengeResponse;
import io.verbs4j.tcp.protocol.FrameFlyweight;

/**
 * One connection's side of the authentication that precedes the connection handshake when a cluster secret is
 * configured (the frames are in {@link io.verbs4j.tcp.protocol.FrameType}, the proofs in {@link ChallengeResponse}).
 * It holds the nonces and the phase; {@link TcpHandshake} does the I/O and the refusals. Without a secret it is
 * authenticated from the start and the handshake is the unauthenticated one. Event loop only.
 */
final class TcpAuthenticator
{
    /** Names the protocol in every proof, so that a proof for another protocol or version is no proof here. */
    static final String CONTEXT = "verbs4j-tcp-v" + FrameFlyweight.CURRENT_VERSION;

    private static final int AWAIT_HELLO = 1;
    private static final int AWAIT_CHALLENGE = 2;
    private static final int AWAIT_RESPONSE = 3;
    private static final int DONE = 4;

    private final ChallengeResponse challengeResponse;
    private int phase;
    private byte[] ownNonce;
    private byte[] peerNonce;

    /**
     * @param secret    the device's secret, configured or not.
     * @param connector true on the connecting side.
     */
    TcpAuthenticator(final ClusterSecret secret, final boolean connector)
    {
        challengeResponse = secret.isConfigured() ? new ChallengeResponse(secret, CONTEXT) : null;
        phase = null == challengeResponse ? DONE : connector ? AWAIT_CHALLENGE : AWAIT_HELLO;
    }

    /** @return true when this side has a secret, so the peer must prove it. */
    boolean isRequired()
    {
        return null != challengeResponse;
    }

    /** @return true once the peer proved the secret, or from the start when there is none. */
    boolean isAuthenticated()
    {
        return DONE == phase;
    }

    boolean isAwaitingHello()
    {
        return AWAIT_HELLO == phase;
    }

    boolean isAwaitingChallenge()
    {
        return AWAIT_CHALLENGE == phase;
    }

    boolean isAwaitingResponse()
    {
        return AWAIT_RESPONSE == phase;
    }

    /** @return connector: the AUTH_HELLO payload (a fresh nonce). */
    byte[] hello()
    {
        ownNonce = ChallengeResponse.newNonce();
        return ownNonce;
    }

    /**
     * Acceptor: answers an AUTH_HELLO.
     *
     * @param hello the connector's nonce.
     * @return the AUTH_CHALLENGE payload: this side's nonce and proof.
     */
    byte[] challenge(final byte[] hello)
    {
        peerNonce = hello;
        ownNonce = ChallengeResponse.newNonce();
        phase = AWAIT_RESPONSE;
        return challengeResponse.challenge(ownNonce, peerNonce);
    }

    /**
     * Connector: checks the acceptor's AUTH_CHALLENGE.
     *
     * @param challenge the acceptor's nonce and proof.
     * @return the AUTH_RESPONSE payload (this side's proof), or null if the acceptor's proof is wrong.
     */
    byte[] respond(final byte[] challenge)
    {
        final byte[] answer = challengeResponse.answer(challenge, ownNonce);
        if (null != answer)
        {
            phase = DONE;
        }
        return answer;
    }

    /**
     * Acceptor: checks the connector's AUTH_RESPONSE.
     *
     * @param response the connector's proof.
     * @return true if it proves the secret for this session.
     */
    boolean verifyResponse(final byte[] response)
    {
        if (!challengeResponse.verify(response, peerNonce, ownNonce, ChallengeResponse.ROLE_CONNECTOR))
        {
            return false;
        }
        phase = DONE;
        return true;
    }
}
