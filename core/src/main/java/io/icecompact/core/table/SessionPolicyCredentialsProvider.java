package io.icecompact.core.table;

import io.icecompact.core.error.TableAccessRoleException;
import io.icecompact.core.error.TransientException;
import java.net.URI;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sts.StsClient;
import software.amazon.awssdk.services.sts.StsClientBuilder;
import software.amazon.awssdk.services.sts.auth.StsAssumeRoleCredentialsProvider;
import software.amazon.awssdk.services.sts.model.StsException;
import software.amazon.awssdk.utils.SdkAutoCloseable;

/**
 * Credentials from STS AssumeRole with an inline session policy, for Iceberg's AWS clients: named
 * by {@code client.credentials-provider}, Iceberg calls {@link #create(Map)} with the catalog
 * properties and those under {@code client.credentials-provider.} stripped of that prefix
 * (iceberg-aws 1.12 {@code AwsClientProperties}). The temporary keys live only inside this object
 * and the SDK clients using it: never in a property, a payload, a log line or a stored document.
 *
 * <p>The STS call itself is signed with the function's own credentials (the default chain), or with
 * {@code s3.access-key-id}/{@code s3.secret-access-key} when the properties carry them (the local
 * stand-ins).
 */
public final class SessionPolicyCredentialsProvider
    implements AwsCredentialsProvider, SdkAutoCloseable {
  static final String ROLE_ARN = "role-arn";
  static final String POLICY = "session-policy";
  static final String SESSION_NAME = "session-name";
  static final String DURATION_SECONDS = "duration-seconds";
  static final String STS_ENDPOINT = "sts-endpoint";

  private final String roleArn;
  private final StsClient sts;
  private final StsAssumeRoleCredentialsProvider delegate;

  private SessionPolicyCredentialsProvider(Map<String, String> properties) {
    this.roleArn = required(properties, ROLE_ARN);
    StsClientBuilder builder =
        StsClient.builder()
            .httpClient(UrlConnectionHttpClient.create())
            .credentialsProvider(baseCredentials(properties));
    if (properties.get("client.region") != null) {
      builder.region(Region.of(properties.get("client.region")));
    }
    if (properties.get(STS_ENDPOINT) != null) {
      builder.endpointOverride(URI.create(properties.get(STS_ENDPOINT)));
    }
    this.sts = builder.build();
    this.delegate =
        StsAssumeRoleCredentialsProvider.builder()
            .stsClient(sts)
            .refreshRequest(
                r ->
                    r.roleArn(roleArn)
                        .roleSessionName(properties.getOrDefault(SESSION_NAME, "icecompact"))
                        .policy(required(properties, POLICY))
                        .durationSeconds(
                            Integer.parseInt(
                                properties.getOrDefault(
                                    DURATION_SECONDS,
                                    Integer.toString(TableAccessRole.SESSION_SECONDS)))))
            .build();
  }

  /** Iceberg's entry point (see the class comment). */
  public static SessionPolicyCredentialsProvider create(Map<String, String> properties) {
    return new SessionPolicyCredentialsProvider(properties);
  }

  @Override
  public AwsCredentials resolveCredentials() {
    try {
      return delegate.resolveCredentials();
    } catch (StsException e) {
      String what = "Cannot assume the table-access role " + roleArn + ": " + e.getMessage();
      boolean transientFailure =
          e.isThrottlingException()
              || e.statusCode() >= 500
              || "IDPCommunicationError".equals(errorCode(e));
      throw transientFailure
          ? new TransientException(what, e)
          : new TableAccessRoleException(what, e);
    } catch (SdkClientException e) {
      throw new TransientException(
          "Cannot reach STS to assume the table-access role " + roleArn + ": " + e.getMessage(), e);
    }
  }

  private static String errorCode(StsException e) {
    return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
  }

  private static AwsCredentialsProvider baseCredentials(Map<String, String> properties) {
    String key = properties.get("s3.access-key-id");
    String secret = properties.get("s3.secret-access-key");
    if (key != null && secret != null) {
      return StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret));
    }
    return DefaultCredentialsProvider.builder().build();
  }

  private static String required(Map<String, String> properties, String name) {
    String value = properties.get(name);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(
          "client.credentials-provider."
              + name
              + " is required by "
              + SessionPolicyCredentialsProvider.class.getSimpleName());
    }
    return value;
  }

  @Override
  public void close() {
    delegate.close();
    sts.close();
  }
}
