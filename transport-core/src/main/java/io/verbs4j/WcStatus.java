// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j;

/**
 * Work-completion statuses: the verbs error model ({@code enum ibv_wc_status}, same numbering). Every work request
 * ends with exactly one of these, delivered in its completion (always for failures, for successes only when the
 * request was signaled).
 * <p>
 * Any status other than {@link #SUCCESS} moves the queue pair to {@link QpState#ERROR}; every work request still
 * outstanding, and every one posted afterwards, then completes with {@link #WR_FLUSH_ERR}.
 */
public final class WcStatus
{
    /** The operation completed. */
    public static final int SUCCESS = 0;
    /** Local length error: a received message is longer than the posted receive buffer. */
    public static final int LOC_LEN_ERR = 1;
    /** Local QP operation error: an internal consistency error on the local queue pair. */
    public static final int LOC_QP_OP_ERR = 2;
    /** Local protection error: a local SGE names an unknown lkey, lies outside its region or lacks LOCAL_WRITE. */
    public static final int LOC_PROT_ERR = 4;
    /** Flushed: the queue pair was in, or went to, the ERROR state before this request was carried out. */
    public static final int WR_FLUSH_ERR = 5;
    /** Bad response: the peer answered with something this side did not expect. */
    public static final int BAD_RESP_ERR = 7;
    /** Local access error on a received message. */
    public static final int LOC_ACCESS_ERR = 8;
    /** Remote invalid request: the peer refused the request (e.g. its receive buffer was too small). */
    public static final int REM_INV_REQ_ERR = 9;
    /** Remote access error: unknown or invalidated rkey, missing access flag, or range out of bounds at the peer. */
    public static final int REM_ACCESS_ERR = 10;
    /** Remote operation error: the peer could not complete the operation. */
    public static final int REM_OP_ERR = 11;
    /** Transport retry counter exceeded: the peer stopped answering (died, hung or the link broke). */
    public static final int RETRY_EXC_ERR = 12;
    /** Receiver-not-ready retries exceeded: the peer had no receive posted for a SEND within the RNR budget. */
    public static final int RNR_RETRY_EXC_ERR = 13;
    /** Fatal error of the provider. */
    public static final int FATAL_ERR = 19;
    /** Any other error. */
    public static final int GENERAL_ERR = 21;

    private static final String[] NAMES = new String[22];

    static
    {
        NAMES[SUCCESS] = "SUCCESS";
        NAMES[LOC_LEN_ERR] = "LOC_LEN_ERR";
        NAMES[LOC_QP_OP_ERR] = "LOC_QP_OP_ERR";
        NAMES[LOC_PROT_ERR] = "LOC_PROT_ERR";
        NAMES[WR_FLUSH_ERR] = "WR_FLUSH_ERR";
        NAMES[BAD_RESP_ERR] = "BAD_RESP_ERR";
        NAMES[LOC_ACCESS_ERR] = "LOC_ACCESS_ERR";
        NAMES[REM_INV_REQ_ERR] = "REM_INV_REQ_ERR";
        NAMES[REM_ACCESS_ERR] = "REM_ACCESS_ERR";
        NAMES[REM_OP_ERR] = "REM_OP_ERR";
        NAMES[RETRY_EXC_ERR] = "RETRY_EXC_ERR";
        NAMES[RNR_RETRY_EXC_ERR] = "RNR_RETRY_EXC_ERR";
        NAMES[FATAL_ERR] = "FATAL_ERR";
        NAMES[GENERAL_ERR] = "GENERAL_ERR";
    }

    private WcStatus()
    {
    }

    /**
     * @param status a status code.
     * @return its verbs name, or {@code UNKNOWN(n)}.
     */
    public static String name(final int status)
    {
        final String name = status >= 0 && status < NAMES.length ? NAMES[status] : null;
        return null != name ? name : "UNKNOWN(" + status + ")";
    }
}
