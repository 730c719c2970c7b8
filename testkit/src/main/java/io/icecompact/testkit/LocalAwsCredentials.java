package io.icecompact.testkit;

import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;

/**
 * Static credentials for the AWS clients Iceberg builds from catalog properties (here:
 * DynamoDbCatalog's DynamoDB client, which has no access-key properties of its own, unlike
 * S3FileIO's {@code s3.*} keys). Named by {@code client.credentials-provider}; iceberg-aws calls
 * {@link #create(Map)} with the {@code client.credentials-provider.*} properties, prefix removed:
 * {@code access-key-id} and {@code secret-access-key}.
 */
public final class LocalAwsCredentials implements AwsCredentialsProvider {
  public static final String PREFIX = "client.credentials-provider.";

  private final AwsBasicCredentials credentials;

  private LocalAwsCredentials(AwsBasicCredentials credentials) {
    this.credentials = credentials;
  }

  public static LocalAwsCredentials create(Map<String, String> properties) {
    String accessKeyId = properties.get("access-key-id");
    String secretAccessKey = properties.get("secret-access-key");
    if (accessKeyId == null || secretAccessKey == null) {
      throw new IllegalArgumentException(
          "set "
              + PREFIX
              + "access-key-id and "
              + PREFIX
              + "secret-access-key; got "
              + properties.keySet());
    }
    return new LocalAwsCredentials(AwsBasicCredentials.create(accessKeyId, secretAccessKey));
  }

  @Override
  public AwsCredentials resolveCredentials() {
    return credentials;
  }
}
