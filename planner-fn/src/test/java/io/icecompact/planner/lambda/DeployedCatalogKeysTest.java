package io.icecompact.planner.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.scope.DeployedCatalog;
import org.apache.iceberg.aws.HttpClientProperties;
import org.apache.iceberg.aws.s3.S3FileIOProperties;
import org.junit.jupiter.api.Test;

/**
 * The keys an input may add to the deployed catalog are Iceberg's own names (core, where {@link
 * DeployedCatalog} lives, does not depend on iceberg-aws): a renamed constant would otherwise make
 * the allowance silently useless.
 */
class DeployedCatalogKeysTest {
  @Test
  void theTunableKeysAreIcebergsS3FileIoAndHttpClientProperties() {
    assertThat(DeployedCatalog.INPUT_TUNABLE)
        .containsExactlyInAnyOrder(
            S3FileIOProperties.MULTIPART_SIZE,
            S3FileIOProperties.MULTIPART_THRESHOLD_FACTOR,
            S3FileIOProperties.MULTIPART_UPLOAD_THREADS,
            S3FileIOProperties.DELETE_BATCH_SIZE,
            S3FileIOProperties.DELETE_THREADS,
            HttpClientProperties.URLCONNECTION_SOCKET_TIMEOUT_MS,
            HttpClientProperties.URLCONNECTION_CONNECTION_TIMEOUT_MS);
  }
}
