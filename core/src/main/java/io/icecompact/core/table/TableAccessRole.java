package io.icecompact.core.table;

import java.net.URI;
import java.util.Map;
import java.util.Optional;

/**
 * The role a function assumes, with a {@link TableSessionPolicy}, before it writes a table: from
 * {@code TABLE_ACCESS_ROLE_ARN} (unset: the function writes with its own credentials, as the
 * embedded runner and the CLI always do).
 *
 * <p>Sessions last {@value #SESSION_SECONDS} s, STS's minimum, which is also Lambda's longest
 * timeout: a session never outlives the invocation that asked for it by more than one invocation
 * (the provider refreshes it before expiry should a call run that long).
 *
 * @param roleArn the role to assume
 * @param stsEndpoint STS endpoint override (tests' LocalSts); null: the SDK's regional endpoint
 */
public record TableAccessRole(String roleArn, URI stsEndpoint) {
  public static final String ROLE_ARN_ENV = "TABLE_ACCESS_ROLE_ARN";
  public static final int SESSION_SECONDS = 900;

  public static Optional<TableAccessRole> fromEnvironment() {
    return fromEnvironment(System.getenv());
  }

  public static Optional<TableAccessRole> fromEnvironment(Map<String, String> environment) {
    String arn = environment.get(ROLE_ARN_ENV);
    return arn == null || arn.isBlank()
        ? Optional.empty()
        : Optional.of(new TableAccessRole(arn.trim(), null));
  }
}
