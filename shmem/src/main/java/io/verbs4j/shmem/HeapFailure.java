// SPDX-License-Identifier: Apache-2.0
// Copyright The verbs4j Authors

package io.verbs4j.shmem;

/**
 * The first failure of a heap, shared by its parts: once set, every operation throws it. Set by the thread that
 * runs the heap (completion handling, health checks) and by {@link SymmetricHeap#abort()} from any thread, hence
 * volatile. Allocates only when a failure is recorded.
 */
final class HeapFailure
{
    private volatile ShmemException failure;

    /** @return true once failed. */
    boolean isFailed()
    {
        return null != failure;
    }

    /** @return the failure, or null. */
    ShmemException failure()
    {
        return failure;
    }

    /**
     * Records a failure if none was recorded yet.
     *
     * @param reason  why.
     * @param pe      the PE concerned, or -1.
     * @param message what happened.
     * @param cause   underlying exception, or null.
     * @return the recorded failure (the first one).
     */
    synchronized ShmemException fail(final ShmemException.Reason reason, final int pe, final String message,
        final Throwable cause)
    {
        if (null == failure)
        {
            failure = new ShmemException(reason, pe, message, cause);
        }
        return failure;
    }

    /** Throws the failure if there is one (one volatile load otherwise). */
    void check()
    {
        final ShmemException f = failure;
        if (null != f)
        {
            throw rethrow(f);
        }
    }

    private static ShmemException rethrow(final ShmemException f)
    {
        // a fresh exception per throw, so each caller's stack is there, with the first failure as its cause
        return new ShmemException(f.reason(), f.pe(), f.getMessage(), f);
    }
}
