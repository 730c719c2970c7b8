package io.icecompact.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

class LocalDynamoDbTest {

  @Test
  void theDynaliteWrapperPrintsAFreePortAndExitsByItselfWhenItsStdinCloses() throws Exception {
    Process process =
        NodeProcesses.builder(LocalAwsDir.resolve(), "dynalite-server.js", java.util.List.of())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try {
      String port =
          new java.io.BufferedReader(
                  new java.io.InputStreamReader(
                      process.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))
              .readLine();
      assertThat(port).matches("\\d+").isNotEqualTo("4567");
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(port)), 1000);
      }
      process.getOutputStream().close(); // what happens when the JVM that started it dies

      assertThat(process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      assertThat(process.exitValue()).isZero();
    } finally {
      process.destroyForcibly();
    }
  }

  @Test
  void conditionalPutFailsWithConditionalCheckFailedExceptionAndTheChildDiesOnClose()
      throws IOException {
    URI endpoint;
    try (LocalDynamoDb dynamo = new LocalDynamoDb()) {
      endpoint = dynamo.endpoint();
      DynamoDbClient client = dynamo.client();
      client.createTable(
          b ->
              b.tableName("items")
                  .billingMode(BillingMode.PAY_PER_REQUEST)
                  .attributeDefinitions(
                      a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                  .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH)));
      assertThat(client.describeTable(b -> b.tableName("items")).table().tableStatus())
          .isEqualTo(TableStatus.ACTIVE);

      Map<String, AttributeValue> first =
          Map.of("pk", AttributeValue.fromS("a"), "owner", AttributeValue.fromS("first"));
      client.putItem(
          b -> b.tableName("items").item(first).conditionExpression("attribute_not_exists(pk)"));

      Map<String, AttributeValue> second =
          Map.of("pk", AttributeValue.fromS("a"), "owner", AttributeValue.fromS("second"));
      assertThatThrownBy(
              () ->
                  client.putItem(
                      b ->
                          b.tableName("items")
                              .item(second)
                              .conditionExpression("attribute_not_exists(pk)")
                              .returnValuesOnConditionCheckFailure(
                                  ReturnValuesOnConditionCheckFailure.ALL_OLD)))
          .isInstanceOfSatisfying(
              ConditionalCheckFailedException.class,
              e -> {
                assertThat(e.statusCode()).isEqualTo(400);
                assertThat(e.awsErrorDetails().errorCode())
                    .isEqualTo("ConditionalCheckFailedException");
              });

      assertThat(
              client
                  .getItem(
                      b ->
                          b.tableName("items")
                              .key(Map.of("pk", AttributeValue.fromS("a")))
                              .consistentRead(true))
                  .item())
          .isEqualTo(first);
    }
    // The child exited: nothing listens on its port any more.
    assertThatThrownBy(
            () -> {
              try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", endpoint.getPort()), 1000);
              }
            })
        .isInstanceOf(ConnectException.class);
  }
}
