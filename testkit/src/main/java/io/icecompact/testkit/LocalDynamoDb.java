package io.icecompact.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A DynamoDB endpoint for tests: dynalite (an in-memory implementation of the DynamoDB API on
 * LevelDB, from npm) as a child process, because Amazon's DynamoDB Local may not be used here and
 * there is no Docker. Conditional writes, {@code ConditionalCheckFailedException}, Query and
 * UpdateItem behave as in DynamoDB; TransactWriteItems and UpdateTimeToLive do not exist. Tables
 * are ACTIVE as soon as they are created.
 *
 * <p>The child listens on a free port of 127.0.0.1 and exits when its stdin closes, so it dies with
 * the test JVM even when the JVM is killed. Every instance starts empty.
 */
public final class LocalDynamoDb implements AutoCloseable {
  public static final String REGION = "us-east-1";

  private Process process;
  private URI endpoint;
  private DynamoDbClient client;

  /** Starts dynalite (about half a second); every accessor calls this. */
  public synchronized LocalDynamoDb start() {
    if (process != null) {
      return this;
    }
    Path localAws = LocalAwsDir.resolve();
    Process started;
    try {
      started =
          NodeProcesses.builder(localAws, "dynalite-server.js", List.of())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot start " + LocalAwsDir.node() + " (is Node.js 20+ on the PATH?)", e);
    }
    BufferedReader stdout =
        new BufferedReader(new InputStreamReader(started.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<String> firstLine =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return stdout.readLine();
              } catch (IOException e) {
                return null;
              }
            });
    String line;
    try {
      line = firstLine.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      started.destroyForcibly();
      throw new IllegalStateException("dynalite did not report its port within 30 s", e);
    }
    if (line == null || !line.strip().matches("\\d+")) {
      started.destroyForcibly();
      throw new IllegalStateException(
          "dynalite did not start (first line: " + line + "); see its stderr above");
    }
    // Keep reading stdout so the child never blocks on a full pipe.
    NodeProcesses.drain(started.getInputStream());
    process = started;
    endpoint = URI.create("http://127.0.0.1:" + line.strip());
    return this;
  }

  /** {@code http://127.0.0.1:<port>}. */
  public URI endpoint() {
    start();
    return endpoint;
  }

  /**
   * A client for this endpoint (static test credentials, region us-east-1, url-connection HTTP
   * client), closed with this instance.
   */
  public synchronized DynamoDbClient client() {
    start();
    if (client == null) {
      client = newClient();
    }
    return client;
  }

  /** A new client for this endpoint, owned by the caller. */
  public DynamoDbClient newClient() {
    return newClient(new ExecutionInterceptor[0]);
  }

  /**
   * A new client whose requests pass through {@code interceptors} (the SDK's hook) on their way to
   * this endpoint: a test fails a chosen call there, the rest reach the server.
   */
  public DynamoDbClient newClient(ExecutionInterceptor... interceptors) {
    return DynamoDbClient.builder()
        .overrideConfiguration(
            c -> {
              for (ExecutionInterceptor interceptor : interceptors) {
                c.addExecutionInterceptor(interceptor);
              }
            })
        .endpointOverride(endpoint())
        .region(Region.of(REGION))
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("testkit", "testkit")))
        .httpClient(UrlConnectionHttpClient.create())
        .build();
  }

  @Override
  public synchronized void close() {
    if (client != null) {
      client.close();
      client = null;
    }
    if (process != null) {
      Process stopping = process;
      process = null;
      try {
        stopping.getOutputStream().close(); // the child exits on stdin EOF
        if (!stopping.waitFor(5, TimeUnit.SECONDS)) {
          stopping.destroyForcibly();
        }
      } catch (IOException e) {
        stopping.destroyForcibly();
      } catch (InterruptedException e) {
        stopping.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
