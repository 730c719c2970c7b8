package io.icecompact.lease.lambda;

/**
 * Values the later states need from the first one: the Map's concurrency, and when the job started
 * (for the job log).
 */
public record LeaseSettings(int maxConcurrency, int leaseTtlSeconds, long startedAtMillis) {}
