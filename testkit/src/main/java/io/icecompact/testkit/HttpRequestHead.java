package io.icecompact.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The head of an HTTP/1.1 request as {@link FaultyS3} reads it: method, path-style bucket and key,
 * and the header lines as sent, which it forwards unchanged but for {@code Connection}.
 */
final class HttpRequestHead {
  final String method;
  final String bucket;
  final String key;
  final List<String> lines;

  /** The query string as sent, without the {@code ?}; empty when none. */
  final String query;

  private HttpRequestHead(
      String method, String bucket, String key, List<String> lines, String query) {
    this.method = method;
    this.bucket = bucket;
    this.key = key;
    this.lines = lines;
    this.query = query;
  }

  /** The next request's head, or null at the end of the stream. */
  static HttpRequestHead read(InputStream in) throws IOException {
    byte[] bytes = readHeadBytes(in);
    if (bytes == null) {
      return null;
    }
    List<String> lines =
        new ArrayList<>(List.of(new String(bytes, StandardCharsets.ISO_8859_1).split("\r\n")));
    String[] requestLine = lines.get(0).split(" ");
    String target = requestLine[1];
    int query = target.indexOf('?');
    String path = query < 0 ? target : target.substring(0, query);
    String[] parts = path.substring(1).split("/", 2);
    String bucket = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
    String key =
        parts.length > 1
            ? URLDecoder.decode(parts[1].replace("+", "%2B"), StandardCharsets.UTF_8)
            : "";
    return new HttpRequestHead(
        requestLine[0], bucket, key, lines, query < 0 ? "" : target.substring(query + 1));
  }

  /** The bytes up to and including the blank line that ends a head, or null when none came. */
  static byte[] readHeadBytes(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    for (int b; (b = in.read()) >= 0; ) {
      head.write(b);
      matched =
          (b == '\r' && matched % 2 == 0) || (b == '\n' && matched % 2 == 1) ? matched + 1 : 0;
      if (matched == 4) {
        return head.toByteArray();
      }
    }
    return null;
  }

  static long contentLength(String head) {
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        return Long.parseLong(line.substring("content-length:".length()).trim());
      }
    }
    return 0;
  }

  Optional<String> header(String name) {
    String prefix = name.toLowerCase(Locale.ROOT) + ":";
    return lines.stream()
        .skip(1)
        .filter(line -> line.toLowerCase(Locale.ROOT).startsWith(prefix))
        .map(line -> line.substring(prefix.length()).trim())
        .findFirst();
  }

  /** Whether the query names {@code name} ({@code ?delete}, {@code ?uploadId=...}). */
  boolean hasQueryParameter(String name) {
    for (String parameter : query.split("&")) {
      String parameterName =
          parameter.contains("=") ? parameter.substring(0, parameter.indexOf('=')) : parameter;
      if (URLDecoder.decode(parameterName, StandardCharsets.UTF_8).equals(name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Reads the body the head announces, as sent (framing included), to be forwarded unchanged: only
   * for a Content-Length body.
   */
  byte[] readBody(InputStream in) throws IOException {
    long length = header("Content-Length").map(Long::parseLong).orElse(0L);
    return in.readNBytes((int) length);
  }

  boolean expectsContinue() {
    return header("Expect").map(value -> value.equalsIgnoreCase("100-continue")).orElse(false);
  }

  /** Reads and drops the body the head announces (Content-Length or chunked). */
  void skipBody(InputStream in) throws IOException {
    if (header("Transfer-Encoding").map(v -> v.equalsIgnoreCase("chunked")).orElse(false)) {
      while (true) {
        String size = readLine(in);
        int length = Integer.parseInt(size.split(";")[0].trim(), 16);
        if (length == 0) {
          while (!readLine(in).isEmpty()) {
            // trailers
          }
          return;
        }
        in.skipNBytes(length);
        readLine(in);
      }
    }
    long length = header("Content-Length").map(Long::parseLong).orElse(0L);
    in.skipNBytes(length);
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b; (b = in.read()) >= 0 && b != '\n'; ) {
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }

  /** The head as received, but asking the server to close the connection after its answer. */
  byte[] bytesClosingConnection() {
    StringBuilder out = new StringBuilder(lines.get(0)).append("\r\n");
    for (String line : lines.subList(1, lines.size())) {
      if (!line.toLowerCase(Locale.ROOT).startsWith("connection:")) {
        out.append(line).append("\r\n");
      }
    }
    return out.append("Connection: close\r\n\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
  }
}
