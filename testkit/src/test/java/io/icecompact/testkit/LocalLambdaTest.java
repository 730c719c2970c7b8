package io.icecompact.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icecompact.testkit.fixtures.JsonHandler;
import io.icecompact.testkit.fixtures.PermanentFailure;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Invoke API as the AWS SDKs call it: path-encoded FunctionName, raw payload in, raw payload
 * out.
 */
class LocalLambdaTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();
  private LocalLambda lambda;

  @BeforeEach
  void start() {
    lambda = new LocalLambda();
  }

  @AfterEach
  void stop() {
    lambda.close();
  }

  private HttpResponse<String> invoke(String functionName, String payload) throws Exception {
    URI uri =
        lambda
            .endpoint()
            .resolve(
                "/2015-03-31/functions/"
                    + URLEncoder.encode(functionName, StandardCharsets.UTF_8)
                    + "/invocations");
    return http.send(
        HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofString(payload)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void successReturnsTheHandlersOutputAndEachCallGetsAFreshContext() throws Exception {
    lambda.register(
        "hello",
        (JsonHandler)
            (input, context) ->
                Map.of(
                    "name", input.get("name").asText(),
                    "function", context.getFunctionName(),
                    "arn", context.getInvokedFunctionArn(),
                    "request_id", context.getAwsRequestId(),
                    "remaining_positive", context.getRemainingTimeInMillis() > 0));

    HttpResponse<String> byName = invoke("hello", "{\"name\":\"a\"}");
    HttpResponse<String> byArn = invoke(LocalLambda.arn("hello"), "{\"name\":\"b\"}");
    HttpResponse<String> byQualifiedArn =
        invoke(LocalLambda.arn("hello") + ":$LATEST", "{\"name\":\"c\"}");

    assertThat(byName.statusCode()).isEqualTo(200);
    assertThat(byName.headers().firstValue("X-Amz-Function-Error")).isEmpty();
    JsonNode a = JSON.readTree(byName.body());
    JsonNode b = JSON.readTree(byArn.body());
    assertThat(a.get("name").asText()).isEqualTo("a");
    assertThat(b.get("name").asText()).isEqualTo("b");
    assertThat(JSON.readTree(byQualifiedArn.body()).get("name").asText()).isEqualTo("c");
    assertThat(a.get("function").asText()).isEqualTo("hello");
    assertThat(a.get("arn").asText())
        .isEqualTo("arn:aws:lambda:us-east-1:123456789012:function:hello");
    assertThat(a.get("remaining_positive").asBoolean()).isTrue();
    assertThat(a.get("request_id").asText()).isNotEqualTo(b.get("request_id").asText());
    assertThat(lambda.invocations("hello")).isEqualTo(3);
    assertThat(lambda.payloads("hello"))
        .containsExactly("{\"name\":\"a\"}", "{\"name\":\"b\"}", "{\"name\":\"c\"}");
  }

  @Test
  void aThrowingHandlerGivesLambdasJavaRuntimeErrorDocument() throws Exception {
    lambda.register(
        "broken",
        (JsonHandler)
            (input, context) -> {
              throw new PermanentFailure("corrupt footer in s3://b/f.parquet");
            });
    lambda.register(
        "silent",
        (JsonHandler)
            (input, context) -> {
              throw new IllegalStateException();
            });

    HttpResponse<String> response = invoke("broken", "{}");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("X-Amz-Function-Error")).contains("Unhandled");
    JsonNode error = JSON.readTree(response.body());
    assertThat(error.fieldNames())
        .toIterable()
        .containsExactly("errorMessage", "errorType", "stackTrace");
    assertThat(error.get("errorMessage").asText()).isEqualTo("corrupt footer in s3://b/f.parquet");
    assertThat(error.get("errorType").asText())
        .isEqualTo("io.icecompact.testkit.fixtures.PermanentFailure");
    assertThat(error.get("stackTrace").isArray()).isTrue();
    assertThat(error.get("stackTrace").get(0).asText())
        .startsWith("io.icecompact.testkit.LocalLambdaTest.lambda$");
    assertThat(lambda.invocations("broken")).isEqualTo(1);

    // No message: the runtime puts the class name in errorMessage.
    JsonNode silent = JSON.readTree(invoke("silent", "{}").body());
    assertThat(silent.get("errorMessage").asText()).isEqualTo("java.lang.IllegalStateException");
    assertThat(silent.get("errorType").asText()).isEqualTo("java.lang.IllegalStateException");
  }

  @Test
  void anUnknownFunctionIsResourceNotFound() throws Exception {
    HttpResponse<String> response = invoke("nobody", "{}");

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(response.headers().firstValue("X-Amzn-ErrorType"))
        .contains("ResourceNotFoundException");
    assertThat(JSON.readTree(response.body()).get("message").asText())
        .isEqualTo("Function not found: arn:aws:lambda:us-east-1:123456789012:function:nobody");
    assertThat(lambda.invocations("nobody")).isZero();
  }

  @Test
  void functionNamesAreTakenFromEveryFormOfFunctionName() {
    assertThat(LocalLambda.functionName("f")).isEqualTo("f");
    assertThat(LocalLambda.functionName("f:prod")).isEqualTo("f");
    assertThat(LocalLambda.functionName("123456789012:function:f")).isEqualTo("f");
    assertThat(LocalLambda.functionName("arn:aws:lambda:eu-west-1:123456789012:function:f:7"))
        .isEqualTo("f");
  }
}
