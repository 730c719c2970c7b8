package io.icecompact.lease;

/**
 * The answer to {@link TableLease#acquire}. When {@code acquired}, {@code owner} holds the lease on
 * {@code table} with fencing {@code token} until {@code expiresAtMillis}, and {@code heldBy}/
 * {@code heldUntilMillis} repeat that. When not, {@code token} and {@code expiresAtMillis} are 0 and
 * {@code heldBy} holds the lease until {@code heldUntilMillis}.
 */
public record LeaseGrant(
    boolean acquired,
    String table,
    String owner,
    long token,
    long expiresAtMillis,
    String heldBy,
    long heldUntilMillis) {}
