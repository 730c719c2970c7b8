package io.icecompact.worker;

import io.icecompact.core.io.CreateIfAbsent;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.aws.s3.S3FileIOProperties;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.ResolvingFileIO;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.ServerSideEncryption;

/**
 * {@link CreateIfAbsent} on S3: {@code PutObject} with {@code If-None-Match: *}, which S3 refuses
 * with 412 (PreconditionFailed) when the key exists and with 409 (ConditionalRequestConflict) while
 * another conditional write of it is in flight; both mean "taken". Iceberg's S3FileIO has no
 * conditional create of its own, so the request goes through the S3 client it already holds (same
 * endpoint, credentials, retries), with its encryption and ACL settings, so that a bucket policy
 * requiring them accepts the object as it does the others.
 */
public final class S3CreateIfAbsent implements CreateIfAbsent {
  private static final Set<String> SCHEMES = Set.of("s3", "s3a", "s3n");
  private static final int PRECONDITION_FAILED = 412;
  private static final int CONDITIONAL_REQUEST_CONFLICT = 409;

  // the S3FileIO that serves a location, or null when none does
  private final Function<String, S3FileIO> ioOf;

  private S3CreateIfAbsent(Function<String, S3FileIO> ioOf) {
    this.ioOf = ioOf;
  }

  /**
   * The atomic creates for {@code io}'s locations: S3 locations through S3FileIO (directly, or as
   * the delegate ResolvingFileIO picks for them), local files as core does, none for any other
   * storage.
   */
  public static CreateIfAbsent forFileIO(FileIO io) {
    CreateIfAbsent core = CreateIfAbsent.forFileIO(io);
    if (io instanceof S3FileIO s3) {
      return new S3CreateIfAbsent(location -> s3).orElse(core);
    }
    if (io instanceof ResolvingFileIO resolving) {
      return new S3CreateIfAbsent(location -> delegateOf(resolving, location)).orElse(core);
    }
    return core;
  }

  @Override
  public boolean supports(String location) {
    String scheme = scheme(location);
    return SCHEMES.contains(scheme)
        && location.indexOf('/', scheme.length() + 3) > 0 // a key after the bucket
        && ioOf.apply(location) != null;
  }

  @Override
  public boolean createIfAbsent(String location, byte[] bytes) {
    S3FileIO io = ioOf.apply(location);
    Map<String, String> properties = io.properties();
    String rest = location.substring(scheme(location).length() + 3);
    int slash = rest.indexOf('/');
    String bucket = rest.substring(0, slash);
    // S3FileIO's own mapping of a bucket to an access point, which S3 then addresses instead
    bucket = properties.getOrDefault(S3FileIOProperties.ACCESS_POINTS_PREFIX + bucket, bucket);
    String key = rest.substring(slash + 1);
    S3FileIOProperties s3 = new S3FileIOProperties(properties);
    PutObjectRequest.Builder request =
        PutObjectRequest.builder().bucket(bucket).key(key).ifNoneMatch("*");
    configureAsS3FileIO(s3, request);
    S3Client client = io.client(location);
    try {
      client.putObject(request.build(), RequestBody.fromBytes(bytes));
      return true;
    } catch (S3Exception e) {
      if (e.statusCode() != PRECONDITION_FAILED && e.statusCode() != CONDITIONAL_REQUEST_CONFLICT) {
        throw e;
      }
      // The SDK retries a create whose answer was lost (a timeout, a reset); the retry then meets
      // the object
      // the first try wrote. The caller's bytes are unique to its call, so an object holding them
      // is ours.
      Integer tries = e.numAttempts();
      return tries != null && tries > 1 && holds(client, s3, bucket, key, bytes);
    }
  }

  private static boolean holds(
      S3Client client, S3FileIOProperties s3, String bucket, String key, byte[] bytes) {
    GetObjectRequest.Builder request = GetObjectRequest.builder().bucket(bucket).key(key);
    if (S3FileIOProperties.SSE_TYPE_CUSTOM.equalsIgnoreCase(s3.sseType())) {
      request
          .sseCustomerAlgorithm(ServerSideEncryption.AES256.toString())
          .sseCustomerKey(s3.sseKey())
          .sseCustomerKeyMD5(s3.sseMd5());
    }
    try {
      return Arrays.equals(client.getObjectAsBytes(request.build()).asByteArray(), bytes);
    } catch (NoSuchKeyException e) {
      return false; // a 409: the other create in flight has not landed yet, and it is not ours
    }
  }

  /**
   * The encryption and ACL S3FileIO puts on its own writes (its helper for this is
   * package-private).
   */
  private static void configureAsS3FileIO(S3FileIOProperties s3, PutObjectRequest.Builder request) {
    String sse =
        s3.sseType() == null
            ? S3FileIOProperties.SSE_TYPE_NONE
            : s3.sseType().toLowerCase(Locale.ROOT);
    switch (sse) {
      case S3FileIOProperties.SSE_TYPE_S3 ->
          request.serverSideEncryption(ServerSideEncryption.AES256);
      case S3FileIOProperties.SSE_TYPE_KMS ->
          request.serverSideEncryption(ServerSideEncryption.AWS_KMS).ssekmsKeyId(s3.sseKey());
      case S3FileIOProperties.DSSE_TYPE_KMS ->
          request.serverSideEncryption(ServerSideEncryption.AWS_KMS_DSSE).ssekmsKeyId(s3.sseKey());
      case S3FileIOProperties.SSE_TYPE_CUSTOM ->
          request
              .sseCustomerAlgorithm(ServerSideEncryption.AES256.toString())
              .sseCustomerKey(s3.sseKey())
              .sseCustomerKeyMD5(s3.sseMd5());
      default -> {}
    }
    if (s3.acl() != null) {
      request.acl(s3.acl());
    }
  }

  private static String scheme(String location) {
    int end = location.indexOf("://");
    return end <= 0 ? "" : location.substring(0, end).toLowerCase(Locale.ROOT);
  }

  /**
   * The S3FileIO ResolvingFileIO uses for {@code location}, or null. Its accessor is
   * package-private, so it is called reflectively; if a later Iceberg drops it, S3 locations under
   * ResolvingFileIO fall back to the check-then-write claim (see {@code JobStore#claimAttempt}).
   */
  private static S3FileIO delegateOf(ResolvingFileIO resolving, String location) {
    Method accessor = ResolvingAccessor.METHOD;
    if (accessor == null) {
      return null;
    }
    try {
      return accessor.invoke(resolving, location) instanceof S3FileIO s3 ? s3 : null;
    } catch (ReflectiveOperationException e) {
      return null;
    }
  }

  private static final class ResolvingAccessor {
    static final Method METHOD = find();

    private static Method find() {
      try {
        Method method = ResolvingFileIO.class.getDeclaredMethod("io", String.class);
        method.setAccessible(true);
        return method;
      } catch (ReflectiveOperationException | RuntimeException e) {
        return null;
      }
    }
  }
}
