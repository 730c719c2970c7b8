package io.icecompact.worker;

/** Which rewrite path a worker may take for a group. */
public enum RewritePathChoice {
  /** The columnar fast path where the group is eligible, the generic path otherwise (the default). */
  AUTO,
  /** Always Iceberg's generic record path: the reference the fast path is compared against. */
  GENERIC
}
