package io.icecompact.care;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compares file locations written by different writers and returned by different listings: the same
 * object may be named {@code s3://b/k}, {@code s3a://b/k} or {@code s3://b//k}, a local file {@code
 * /w/f}, {@code file:/w/f} or {@code file:///w/f}. A care step deletes only what it proved
 * unreachable, so a comparison that wrongly says "different" must never lead to a delete: callers
 * keep a file whose {@link #path} matches a reachable one even when the whole location does not.
 */
public final class FileLocations {
  private static final Pattern SCHEME = Pattern.compile("^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$");

  /**
   * Hadoop's S3 connectors name the same objects as S3FileIO (Spark's remove_orphan_files'
   * equal-schemes).
   */
  private static final Set<String> S3_SCHEMES = Set.of("s3", "s3a", "s3n");

  private FileLocations() {}

  /**
   * Scheme (s3a and s3n as s3, file as none), authority and path with single slashes and no
   * trailing one.
   */
  public static String normalized(String location) {
    Parts parts = parts(location);
    return parts.scheme.isEmpty()
        ? parts.path
        : parts.scheme + "://" + parts.authority + parts.path;
  }

  /**
   * The path alone (no scheme or bucket): two locations with the same path may be the same object.
   */
  public static String path(String location) {
    return parts(location).path;
  }

  /**
   * {@link #path} with percent-escapes decoded, for writers that stored one form and listings that
   * return the other.
   */
  public static String decodedPath(String location) {
    String path = path(location);
    if (path.indexOf('%') < 0) {
      return path;
    }
    try {
      return URLDecoder.decode(path.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return path;
    }
  }

  /** Whether {@code location} is {@code root} or inside it, by normalized location. */
  public static boolean isUnder(String location, String root) {
    String normalizedRoot = normalized(root);
    String normalized = normalized(location);
    return normalized.equals(normalizedRoot) || normalized.startsWith(normalizedRoot + "/");
  }

  /** {@code location} without a trailing slash, followed by one slash and {@code child}. */
  public static String child(String location, String child) {
    return (location.endsWith("/") ? location.substring(0, location.length() - 1) : location)
        + "/"
        + child;
  }

  /**
   * A location split where its path starts: {@code root} is the normalized scheme and authority
   * ({@code s3://b}, or empty for a local file), {@code path} the rest as written (slashes not
   * collapsed), so that two locations with the same root compare as their paths.
   */
  public record Rooted(String root, String path) {
    /**
     * Whether the path is written as {@link #normalized} writes it: no repeated or trailing slash.
     */
    public boolean regular() {
      return !path.contains("//") && (path.length() <= 1 || !path.endsWith("/"));
    }
  }

  public static Rooted rooted(String location) {
    Parts parts = parts(location);
    return new Rooted(
        parts.scheme.isEmpty() ? "" : parts.scheme + "://" + parts.authority, parts.rawPath);
  }

  private record Parts(String scheme, String authority, String path, String rawPath) {}

  private static Parts parts(String location) {
    String scheme = "";
    String rest = location;
    Matcher matcher = SCHEME.matcher(location);
    if (matcher.matches() && matcher.group(1).length() > 1) { // "C:" is a drive, not a scheme
      scheme = matcher.group(1).toLowerCase(Locale.ROOT);
      rest = matcher.group(2);
    }
    String authority = "";
    if (rest.startsWith("//")) {
      int slash = rest.indexOf('/', 2);
      authority = slash < 0 ? rest.substring(2) : rest.substring(2, slash);
      rest = slash < 0 ? "" : rest.substring(slash);
    }
    if (S3_SCHEMES.contains(scheme)) {
      scheme = "s3";
    } else if (scheme.equals("file")) {
      scheme = "";
      authority = "";
    }
    String path = rest.replaceAll("/{2,}", "/");
    if (path.length() > 1 && path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return new Parts(scheme, authority, path, rest);
  }
}
