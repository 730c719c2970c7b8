package io.icecompact.lease;

/**
 * The answer to {@link TableLease#acquire}. When {@code acquired}, {@code owner} holds the lease on
 * {@code table} with fencing {@code token} until {@code expiresAtMillis}, and {@code heldBy}/
 * {@code heldUntilMillis} repeat that; {@code tookOverFrom} names the previous owner when the lease
 * was taken over after it expired unreleased (that owner crashed, was stopped, or outlived its
 * TTL), and is null otherwise. When not acquired, {@code token} and {@code expiresAtMillis} are 0
 * and {@code heldBy} holds the lease until {@code heldUntilMillis}.
 */
public record LeaseGrant(
    boolean acquired,
    String table,
    String owner,
    long token,
    long expiresAtMillis,
    String heldBy,
    long heldUntilMillis,
    String tookOverFrom) {

  static LeaseGrant acquired(
      String table, String owner, long token, long expiresAtMillis, String tookOverFrom) {
    return new LeaseGrant(
        true, table, owner, token, expiresAtMillis, owner, expiresAtMillis, tookOverFrom);
  }

  static LeaseGrant refused(String table, String owner, String heldBy, long heldUntilMillis) {
    return new LeaseGrant(false, table, owner, 0, 0, heldBy, heldUntilMillis, null);
  }
}
