// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.spi;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;

import javax.crypto.Mac;

import io.verbs4j.config.ClusterSecret;

/**
 * The mutual challenge-response that admits a connection when a {@link ClusterSecret} is configured; one
 * implementation for every protocol that authenticates (the tcp transport's handshake, the rendezvous store).
 * <pre>
 *   connector                                                acceptor
 *   nonce Nc (32 random bytes)       ------------------&gt;
 *                                    &lt;------------------    nonce Na, proof Pa = HMAC(secret, ctx | Na | Nc | 'A')
 *   checks Pa; Pc = HMAC(secret, ctx | Nc | Na | 'C') -----&gt;  checks Pc
 * </pre>
 * Each side proves knowledge of the secret over its own fresh nonce and the peer's, with its role, so a recorded
 * proof is useless in another session (the peer's nonce differs) and a proof cannot be reflected back (the role
 * differs). {@code ctx} names the protocol and version. Proofs are compared in constant time
 * ({@link MessageDigest#isEqual}). The secret itself never leaves the process.
 * <p>
 * Not thread-safe: one instance per connection (or per thread).
 */
public final class ChallengeResponse
{
    /** Length of a nonce in bytes. */
    public static final int NONCE_LENGTH = 32;
    /** Length of a proof (HMAC-SHA256) in bytes. */
    public static final int PROOF_LENGTH = 32;
    /** Length of the acceptor's challenge message: its nonce, then its proof. */
    public static final int CHALLENGE_LENGTH = NONCE_LENGTH + PROOF_LENGTH;
    /** Role byte of the side that connects. */
    public static final byte ROLE_CONNECTOR = 'C';
    /** Role byte of the side that accepts. */
    public static final byte ROLE_ACCEPTOR = 'A';

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Mac mac;
    private final byte[] context;

    /**
     * @param secret  a configured secret.
     * @param context names the protocol and its version, so that a proof for one protocol is no proof for another.
     */
    public ChallengeResponse(final ClusterSecret secret, final String context)
    {
        this.mac = secret.newMac();
        this.context = context.getBytes(StandardCharsets.UTF_8);
    }

    /** @return a fresh random nonce of {@value #NONCE_LENGTH} bytes. */
    public static byte[] newNonce()
    {
        final byte[] nonce = new byte[NONCE_LENGTH];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    /**
     * This side's proof.
     *
     * @param ownNonce  the nonce this side sent.
     * @param peerNonce the nonce the peer sent.
     * @param ownRole   {@link #ROLE_CONNECTOR} or {@link #ROLE_ACCEPTOR}.
     * @return HMAC-SHA256(secret, context | ownNonce | peerNonce | ownRole).
     */
    public byte[] proof(final byte[] ownNonce, final byte[] peerNonce, final byte ownRole)
    {
        checkNonce(ownNonce);
        checkNonce(peerNonce);
        mac.reset();
        mac.update(context);
        mac.update(ownNonce);
        mac.update(peerNonce);
        mac.update(ownRole);
        return mac.doFinal();
    }

    /**
     * Checks the peer's proof.
     *
     * @param peerProof the proof the peer sent (any length; a wrong length fails).
     * @param peerNonce the nonce the peer sent.
     * @param ownNonce  the nonce this side sent.
     * @param peerRole  the role the peer must have.
     * @return true if the peer knows the secret; false otherwise, and also when the peer echoed this side's nonce.
     */
    public boolean verify(final byte[] peerProof, final byte[] peerNonce, final byte[] ownNonce, final byte peerRole)
    {
        if (null == peerProof || PROOF_LENGTH != peerProof.length || MessageDigest.isEqual(peerNonce, ownNonce))
        {
            return false;
        }
        return MessageDigest.isEqual(proof(peerNonce, ownNonce, peerRole), peerProof);
    }

    /**
     * Acceptor: the challenge message answering a connector's nonce.
     *
     * @param ownNonce       the acceptor's fresh nonce.
     * @param connectorNonce the nonce the connector sent.
     * @return {@value #CHALLENGE_LENGTH} bytes: {@code ownNonce}, then the acceptor's proof.
     */
    public byte[] challenge(final byte[] ownNonce, final byte[] connectorNonce)
    {
        final byte[] challenge = Arrays.copyOf(ownNonce, CHALLENGE_LENGTH);
        System.arraycopy(proof(ownNonce, connectorNonce, ROLE_ACCEPTOR), 0, challenge, NONCE_LENGTH, PROOF_LENGTH);
        return challenge;
    }

    /**
     * Connector: checks the acceptor's challenge message and, if it proves the secret, answers it.
     *
     * @param challenge the acceptor's message ({@link #challenge}); any length (a wrong one fails).
     * @param ownNonce  the nonce this connector sent.
     * @return the connector's proof, or null if the challenge does not prove the secret for this session.
     */
    public byte[] answer(final byte[] challenge, final byte[] ownNonce)
    {
        if (null == challenge || CHALLENGE_LENGTH != challenge.length)
        {
            return null;
        }
        final byte[] acceptorNonce = Arrays.copyOf(challenge, NONCE_LENGTH);
        final byte[] acceptorProof = Arrays.copyOfRange(challenge, NONCE_LENGTH, CHALLENGE_LENGTH);
        if (!verify(acceptorProof, acceptorNonce, ownNonce, ROLE_ACCEPTOR))
        {
            return null;
        }
        return proof(ownNonce, acceptorNonce, ROLE_CONNECTOR);
    }

    private static void checkNonce(final byte[] nonce)
    {
        if (null == nonce || NONCE_LENGTH != nonce.length)
        {
            throw new IllegalArgumentException("a nonce has " + NONCE_LENGTH + " bytes");
        }
    }
}
