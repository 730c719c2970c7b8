package io.icecompact.core.job;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.icecompact.core.error.StoredDocumentUnreadableException;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The one JSON shape of every document icecompact reads or writes: snake_case names (Spark's result
 * names, Step Functions' usual style), nulls omitted.
 */
public final class JobJson {
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .setSerializationInclusion(JsonInclude.Include.NON_NULL)
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
          .configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false);

  private JobJson() {}

  public static ObjectMapper mapper() {
    return MAPPER;
  }

  public static byte[] toBytes(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static String toJson(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static String toPrettyJson(Object value) {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Parses a stored document; an unreadable one is a {@link StoredDocumentUnreadableException}
   * whose message is one line: Jackson's own message spans lines and quotes the whole input source.
   */
  public static <T> T fromBytes(byte[] bytes, Class<T> type, String what) {
    try {
      return MAPPER.readValue(bytes, type);
    } catch (IOException e) {
      throw new StoredDocumentUnreadableException("Cannot parse " + what + ": " + reason(e), e);
    }
  }

  /**
   * The parser's reason on one line, with the line and column where it stopped when it knows them.
   */
  static String reason(IOException e) {
    String reason =
        e instanceof JsonProcessingException json ? json.getOriginalMessage() : e.getMessage();
    reason = String.valueOf(reason).replaceAll("\\s*\\R\\s*", " ").trim();
    if (e instanceof JsonProcessingException json
        && json.getLocation() != null
        && json.getLocation().getLineNr() > 0) {
      reason +=
          String.format(
              " (line %d, column %d)",
              json.getLocation().getLineNr(), json.getLocation().getColumnNr());
    }
    return reason;
  }

  /**
   * Embeds JSON produced by an Iceberg parser as a tree, so documents nest it instead of quoting
   * it.
   */
  public static JsonNode tree(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
