package io.icecompact.engine.scope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.TableAccessRoleException;
import io.icecompact.core.error.TransientException;
import io.icecompact.core.table.SessionPolicyCredentialsProvider;
import io.icecompact.testkit.FaultyS3;
import io.icecompact.testkit.LocalS3;
import io.icecompact.testkit.LocalSts;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;

/**
 * The provider Iceberg creates from {@code client.credentials-provider}: the AssumeRole call it
 * makes, and how an STS failure is typed (the state machine retries a TransientException only).
 */
class SessionPolicyCredentialsProviderTest {
  private static final String ROLE = "arn:aws:iam::123456789012:role/icecompact-table-access";
  private static final String POLICY =
      "{\"Version\":\"2012-10-17\",\"Statement\":{\"Effect\":\"Allow\",\"Action\":\"s3:GetObject\",\"Resource\":\"*\"}}";
  private LocalS3 s3;
  private FaultyS3 proxy;
  private LocalSts sts;

  @BeforeEach
  void start() {
    s3 = new LocalS3().start();
    proxy = new FaultyS3(s3, 3).start();
    sts = new LocalSts(proxy).start();
  }

  @AfterEach
  void stop() {
    sts.close();
    proxy.close();
    s3.close();
  }

  private SessionPolicyCredentialsProvider provider() {
    return SessionPolicyCredentialsProvider.create(
        Map.of(
            "role-arn",
            ROLE,
            "session-policy",
            POLICY,
            "session-name",
            "icecompact-worker",
            "sts-endpoint",
            sts.endpoint().toString(),
            "client.region",
            LocalS3.REGION,
            "s3.access-key-id",
            LocalS3.ACCESS_KEY_ID,
            "s3.secret-access-key",
            LocalS3.SECRET_ACCESS_KEY));
  }

  @Test
  void assumesTheRoleWithThePolicyForFifteenMinutes() {
    try (SessionPolicyCredentialsProvider provider = provider()) {
      AwsSessionCredentials credentials = (AwsSessionCredentials) provider.resolveCredentials();
      assertThat(sts.assumed()).hasSize(1);
      LocalSts.AssumedRole call = sts.assumed().get(0);
      assertThat(call.roleArn()).isEqualTo(ROLE);
      assertThat(call.policy()).isEqualTo(POLICY);
      assertThat(call.durationSeconds()).isEqualTo(900);
      assertThat(call.sessionName()).isEqualTo("icecompact-worker");
      assertThat(credentials.sessionToken()).isEqualTo(call.token());
    }
  }

  @Test
  void aRefusalIsAnApplicationErrorAndThrottlingBeyondTheSdksRetriesIsTransient() {
    sts.failNext(403, "AccessDenied");
    try (SessionPolicyCredentialsProvider provider = provider()) {
      assertThatThrownBy(provider::resolveCredentials)
          .isInstanceOf(TableAccessRoleException.class)
          .hasMessageContaining("Cannot assume the table-access role " + ROLE);
    }
    for (int i = 0; i < 10; i++) {
      sts.failNext(400, "Throttling");
    }
    try (SessionPolicyCredentialsProvider provider = provider()) {
      assertThatThrownBy(provider::resolveCredentials).isInstanceOf(TransientException.class);
    }
    assertThat(sts.assumed()).isEmpty();
  }
}
