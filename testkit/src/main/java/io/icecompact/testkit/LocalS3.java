package io.icecompact.testkit;

import java.net.URI;
import java.util.Map;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An S3 endpoint inside the test JVM, so that code written against S3 (the AWS SDK, Iceberg's
 * {@code S3FileIO}) can be tested without AWS or Docker. It is s3proxy over an in-memory store:
 * every instance starts empty on its own free port and forgets everything when closed. Requests are
 * signed (SigV4) with fixed test credentials, as real S3 requires.
 */
public final class LocalS3 implements AutoCloseable {
  public static final String ACCESS_KEY_ID = "testkit-access-key";
  public static final String SECRET_ACCESS_KEY = "testkit-secret-key";
  public static final String REGION = "us-east-1";

  private S3Proxy proxy;
  private URI endpoint;
  private S3Client client;

  /** Starts the endpoint; {@link #start()} is called by every accessor, so this is optional. */
  public synchronized LocalS3 start() {
    if (proxy != null) {
      return this;
    }
    S3Proxy started =
        S3Proxy.builder()
            .blobStore(new TransientNio2BlobStore())
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY_ID, SECRET_ACCESS_KEY)
            .endpoint(URI.create("http://127.0.0.1:0"))
            .ignoreUnknownHeaders(true)
            .stopTimeout(0)
            .build();
    try {
      started.start();
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (!"STARTED".equals(started.getState())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("s3proxy did not start: " + started.getState());
        }
        Thread.sleep(5);
      }
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("s3proxy did not start", e);
    }
    proxy = started;
    endpoint = URI.create("http://127.0.0.1:" + started.getPort());
    return this;
  }

  /** {@code http://127.0.0.1:<port>}; use path-style addressing. */
  public URI endpoint() {
    start();
    return endpoint;
  }

  /** Creates a bucket (S3 naming rules apply) and returns its name. */
  public String createBucket(String name) {
    client().createBucket(b -> b.bucket(name));
    return name;
  }

  /**
   * A client for this endpoint (path-style, test credentials, url-connection HTTP client), closed
   * with this instance.
   */
  public synchronized S3Client client() {
    start();
    if (client == null) {
      client =
          S3Client.builder()
              .endpointOverride(endpoint)
              .region(Region.of(REGION))
              .forcePathStyle(true)
              .credentialsProvider(
                  StaticCredentialsProvider.create(
                      AwsBasicCredentials.create(ACCESS_KEY_ID, SECRET_ACCESS_KEY)))
              .httpClient(UrlConnectionHttpClient.create())
              .build();
    }
    return client;
  }

  /**
   * Iceberg catalog properties that make {@code org.apache.iceberg.aws.s3.S3FileIO} (iceberg-aws
   * 1.12) use this endpoint: {@code s3.endpoint}, {@code s3.path-style-access}, {@code
   * s3.access-key-id}, {@code s3.secret-access-key}, {@code client.region} and {@code
   * http-client.type=urlconnection} (the default, {@code apache}, needs the SDK's Apache client,
   * which the project leaves out). Merge them into the catalog properties or pass them to {@code
   * S3FileIO.initialize}.
   */
  public Map<String, String> icebergProperties() {
    return Map.of(
        "s3.endpoint",
        endpoint().toString(),
        "s3.path-style-access",
        "true",
        "s3.access-key-id",
        ACCESS_KEY_ID,
        "s3.secret-access-key",
        SECRET_ACCESS_KEY,
        "client.region",
        REGION,
        "http-client.type",
        "urlconnection");
  }

  /**
   * Catalog properties of an Iceberg JDBC catalog in the SQLite file {@code sqliteFile} whose
   * warehouse is {@code s3://<bucket>/warehouse} on this server, read and written through Iceberg's
   * {@code S3FileIO}.
   */
  public Map<String, String> jdbcCatalogProperties(String bucket, java.nio.file.Path sqliteFile) {
    Map<String, String> properties = new java.util.TreeMap<>(icebergProperties());
    properties.put("type", "jdbc");
    properties.put("uri", "jdbc:sqlite:" + sqliteFile.toAbsolutePath());
    properties.put("jdbc.schema-version", "V1");
    properties.put("warehouse", "s3://" + bucket + "/warehouse");
    properties.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    return properties;
  }

  @Override
  public synchronized void close() {
    if (client != null) {
      client.close();
      client = null;
    }
    if (proxy != null) {
      S3Proxy stopping = proxy;
      proxy = null;
      try {
        stopping.stop();
      } catch (Exception e) {
        throw new IllegalStateException("s3proxy did not stop", e);
      }
    }
  }
}
