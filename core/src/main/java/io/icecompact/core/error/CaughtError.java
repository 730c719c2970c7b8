package io.icecompact.core.error;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.GroupFailure;
import io.icecompact.core.job.JobJson;
import java.io.IOException;

/**
 * The error object a Step Functions Catch passes on: {@code {"Error": ..., "Cause": ...}}. For a
 * Lambda error the cause is Lambda's error document (message, type, stack trace); {@link
 * #message()} keeps only the message, which is what job logs and group reasons should carry.
 */
public record CaughtError(
    @JsonProperty("Error") String error, @JsonProperty("Cause") String cause) {

  /** The error type as {@link GroupFailure#errorType} names it (the rule both runners share). */
  public String shortType() {
    return GroupFailure.errorType(error);
  }

  /** The error message: Lambda's {@code errorMessage} when the cause is its error document. */
  public String message() {
    if (cause == null) {
      return "";
    }
    try {
      JsonNode node = JobJson.mapper().readTree(cause);
      if (node != null && node.hasNonNull("errorMessage")) {
        return node.get("errorMessage").asText();
      }
    } catch (IOException notJson) {
      // a cause from Step Functions itself (e.g. States.Timeout) is plain text
    }
    return cause;
  }
}
