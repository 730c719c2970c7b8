package io.icecompact.statemachine;

import io.icecompact.testkit.LocalS3;
import java.util.Map;
import java.util.TreeMap;

/**
 * What Lambda and infra/template.yaml put in a function's environment (region, the role's keys, the
 * lease table), pointed at the local S3 and DynamoDB, for the deployed jars run in their own JVMs.
 */
public final class LocalFunctionEnvironment {
  private LocalFunctionEnvironment() {}

  /** The variables, with logging at {@code logLevel}; a mutable copy for the caller to add to. */
  public static Map<String, String> of(
      String dynamoDbEndpoint, String leaseTable, String logLevel) {
    Map<String, String> env = new TreeMap<>();
    env.put("AWS_LAMBDA_LOG_LEVEL", logLevel);
    env.put("AWS_REGION", LocalS3.REGION);
    env.put("AWS_DEFAULT_REGION", LocalS3.REGION);
    env.put("AWS_ACCESS_KEY_ID", LocalS3.ACCESS_KEY_ID);
    env.put("AWS_SECRET_ACCESS_KEY", LocalS3.SECRET_ACCESS_KEY);
    env.put("AWS_ENDPOINT_URL_DYNAMODB", dynamoDbEndpoint);
    env.put("LEASE_TABLE", leaseTable);
    return env;
  }
}
