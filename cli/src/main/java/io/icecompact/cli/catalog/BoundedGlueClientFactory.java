package io.icecompact.cli.catalog;

import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.aws.AwsClientFactories;
import org.apache.iceberg.aws.AwsClientFactory;
import org.apache.iceberg.aws.AwsClientProperties;
import org.apache.iceberg.aws.AwsProperties;
import org.apache.iceberg.aws.HttpClientProperties;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.GlueClientBuilder;
import software.amazon.awssdk.services.kms.KmsClient;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Iceberg's default AWS clients, except that every Glue call gives up after {@link #CALL_TIMEOUT}.
 * An endpoint that accepts connections and never answers (a wrong port, a proxy, a stalled service)
 * would otherwise hold the CLI for three attempts of the SDK's 30-second read timeout; Iceberg has
 * no catalog property for the Glue client's timeouts, so the CLI names this factory as {@code
 * client.factory} for a Glue catalog that names none (see {@link #withBoundedGlue}).
 */
public final class BoundedGlueClientFactory implements AwsClientFactory {
  /** One Glue request; GetTable and UpdateTable answer in well under a second. */
  static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(5);

  /** A whole Glue call with the SDK's retries. */
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(15);

  private AwsClientFactory defaults;
  private AwsProperties awsProperties;
  private AwsClientProperties clientProperties;
  private HttpClientProperties httpClientProperties;

  /**
   * The properties with this factory as {@code client.factory} when they name a Glue catalog and no
   * client factory of their own (such as Iceberg's AssumeRoleAwsClientFactory, which keeps the
   * SDK's timeouts).
   */
  public static Map<String, String> withBoundedGlue(Map<String, String> catalogProperties) {
    String type = catalogProperties.getOrDefault(CatalogUtil.ICEBERG_CATALOG_TYPE, "");
    if (!type.toLowerCase(Locale.ROOT).equals(CatalogUtil.ICEBERG_CATALOG_TYPE_GLUE)
        || catalogProperties.containsKey(AwsProperties.CLIENT_FACTORY)) {
      return catalogProperties;
    }
    Map<String, String> bounded = new java.util.LinkedHashMap<>(catalogProperties);
    bounded.put(AwsProperties.CLIENT_FACTORY, BoundedGlueClientFactory.class.getName());
    return bounded;
  }

  @Override
  public void initialize(Map<String, String> properties) {
    Map<String, String> withoutThisFactory = new HashMap<>(properties);
    withoutThisFactory.remove(AwsProperties.CLIENT_FACTORY);
    this.defaults = AwsClientFactories.from(withoutThisFactory);
    this.awsProperties = new AwsProperties(properties);
    this.clientProperties = new AwsClientProperties(properties);
    this.httpClientProperties = new HttpClientProperties(properties);
  }

  /**
   * As Iceberg's default factory builds it, with the two timeouts added to its retry configuration.
   */
  @Override
  public GlueClient glue() {
    GlueClientBuilder builder =
        GlueClient.builder()
            .applyMutation(clientProperties::applyClientRegionConfiguration)
            .applyMutation(httpClientProperties::applyHttpClientConfigurations)
            .applyMutation(awsProperties::applyGlueEndpointConfigurations)
            .applyMutation(clientProperties::applyClientCredentialConfigurations)
            .applyMutation(clientProperties::applyRetryConfigurations);
    ClientOverrideConfiguration current = builder.overrideConfiguration();
    ClientOverrideConfiguration.Builder override =
        current == null ? ClientOverrideConfiguration.builder() : current.toBuilder();
    return builder
        .overrideConfiguration(
            override
                .apiCallAttemptTimeout(ATTEMPT_TIMEOUT)
                .apiCallTimeout(CALL_TIMEOUT)
                .addExecutionInterceptor(new NamesTheEndpoint())
                .build())
        .build();
  }

  @Override
  public S3Client s3() {
    return defaults.s3();
  }

  @Override
  public S3AsyncClient s3Async() {
    return defaults.s3Async();
  }

  @Override
  public KmsClient kms() {
    return defaults.kms();
  }

  @Override
  public DynamoDbClient dynamo() {
    return defaults.dynamo();
  }

  /** The SDK's timeout says how long it waited, not for whom: the message names the endpoint. */
  private static final class NamesTheEndpoint implements ExecutionInterceptor {
    @Override
    public Throwable modifyException(
        Context.FailedExecution context, ExecutionAttributes attributes) {
      Throwable failure = context.exception();
      if (!(failure instanceof ApiCallTimeoutException)) {
        return failure;
      }
      String endpoint =
          context
              .httpRequest()
              .map(r -> r.protocol() + "://" + r.host() + ":" + r.port())
              .orElse("Glue");
      return ApiCallTimeoutException.builder()
          .message(
              "Glue endpoint "
                  + endpoint
                  + " did not answer within "
                  + CALL_TIMEOUT.toSeconds()
                  + " s ("
                  + ATTEMPT_TIMEOUT.toSeconds()
                  + " s per attempt); check glue.endpoint, client.region and the"
                  + " network path to it")
          .cause(failure)
          .build();
    }
  }
}
