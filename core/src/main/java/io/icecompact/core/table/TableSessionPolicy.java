package io.icecompact.core.table;

import io.icecompact.core.error.OutsideDeploymentScopeException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;

/**
 * The STS session policy under which a stage acting on one table writes: S3 writes and deletes only
 * under that table's folders and the job's work location, everything else as broad as the role. The
 * role grants writes under every table of the warehouse prefix; a session policy is intersected
 * with it, so the session can write only where both allow (docs/deploy.md, "Scoped credentials").
 *
 * <p>Three statements. Every action that is not S3 (Glue and DynamoDB catalog calls, {@code
 * kms:Decrypt} and {@code kms:GenerateDataKey}, which S3 asks of KMS with the caller's credentials
 * on an SSE-KMS bucket) on {@code *}: the role alone bounds them. S3 reads on {@code *}: care reads
 * other tables' metadata to find tables sharing its files, so reads are never narrowed. S3 writes
 * ({@code s3:PutObject}, which covers every multipart call but the abort) and deletes ({@code
 * s3:DeleteObject}, {@code s3:AbortMultipartUpload}) only on {@code
 * arn:aws:s3:::<bucket>/<folder>/*} for the stage's folders. Every other S3 action ({@code
 * s3:DeleteObjectVersion}, ACLs, bucket configuration) is outside the session whatever the role
 * says.
 *
 * <p>The folders by stage: the planner writes only plan documents (work location), as does
 * RecordGroupFailure its failure record; a worker writes data and delete files (the data locations)
 * and its output entries, and deletes its failed outputs; the committer writes manifests, manifest
 * lists and metadata files (the metadata locations) and deletes the outputs of failed attempts
 * (data locations); care expires, removes orphans and rewrites manifests anywhere under the table's
 * folders, old work locations included.
 *
 * <p>STS takes at most {@value #MAX_CHARACTERS} characters of plaintext policy (and a packed size
 * it does not publish, which compression keeps far below for these few similar ARNs): the document
 * is written without spaces, nested folders are merged, and one with every location property set
 * and 150-character prefixes stays under it ({@code TableSessionPolicyTest}).
 *
 * @param stage the stage the session is for
 * @param writeFolders the S3 folders ({@code s3://bucket/key-prefix}, no trailing slash) the stage
 *     may write and delete under
 */
public record TableSessionPolicy(Stage stage, List<String> writeFolders) {
  /** STS's limit on an inline session policy's plaintext (AssumeRole's {@code Policy}). */
  public static final int MAX_CHARACTERS = 2048;

  static final List<String> READ_ACTIONS =
      List.of(
          "s3:GetObject",
          "s3:GetObjectVersion",
          "s3:ListBucket",
          "s3:GetBucketLocation",
          "s3:ListBucketMultipartUploads",
          "s3:ListMultipartUploadParts");

  static final List<String> WRITE_ACTIONS =
      List.of("s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload");

  /** Which of a table's folders each stage writes or deletes under. */
  public enum Stage {
    PLANNER(false, false, false),
    WORKER(true, false, false),
    /** A group's failure record: job documents only. */
    RECORDER(false, false, false),
    COMMITTER(true, true, false),
    CARE(true, true, true);

    private final boolean data;
    private final boolean metadata;
    private final boolean wholeTable;

    Stage(boolean data, boolean metadata, boolean wholeTable) {
      this.data = data;
      this.metadata = metadata;
      this.wholeTable = wholeTable;
    }
  }

  public TableSessionPolicy {
    writeFolders = List.copyOf(writeFolders);
  }

  /**
   * The policy for {@code stage} acting on {@code table} with the job's work location {@code
   * workFolder} (a job directory, or for care the folder of the table's work locations); empty when
   * the table is not on S3 (a local warehouse: the embedded runner, which assumes no role).
   *
   * @throws OutsideDeploymentScopeException when a folder is on S3 but another of the table's is
   *     not, or holds a character STS does not take in a policy: no policy could bound it
   */
  public static Optional<TableSessionPolicy> of(Table table, String workFolder, Stage stage) {
    Set<String> folders = new LinkedHashSet<>();
    folders.add(workFolder);
    Map<String, String> properties = table.properties();
    String location = table.location();
    if (stage.wholeTable) {
      folders.add(location);
    }
    if (stage.data) {
      folders.add(location + "/data");
      // LocationProviders: write.data.path first, then the object-storage or folder-storage path
      for (String property :
          List.of(
              TableProperties.WRITE_DATA_LOCATION,
              TableProperties.OBJECT_STORE_PATH,
              TableProperties.WRITE_FOLDER_STORAGE_LOCATION)) {
        Optional.ofNullable(properties.get(property)).ifPresent(folders::add);
      }
    }
    if (stage.metadata) {
      folders.add(
          properties.getOrDefault(TableProperties.WRITE_METADATA_LOCATION, location + "/metadata"));
      // a registered table's current metadata file may live outside both
      String current = TableAccess.metadataLocation(table);
      if (current != null && current.contains("/")) {
        folders.add(current.substring(0, current.lastIndexOf('/')));
      }
    }
    List<String> normalized = folders.stream().map(TableSessionPolicy::s3Folder).toList();
    long onS3 = normalized.stream().filter(f -> f != null).count();
    if (onS3 == 0) {
      return Optional.empty();
    }
    if (onS3 < normalized.size()) {
      throw new OutsideDeploymentScopeException(
          "Table "
              + table.name()
              + " has folders both on S3 and elsewhere "
              + folders
              + ": no session policy bounds its writes; nothing was written");
    }
    return Optional.of(new TableSessionPolicy(stage, outermost(normalized)));
  }

  /**
   * The folders without those under another of them (care's table location holds its default data
   * and metadata folders): fewer characters of STS's budget, the same objects.
   */
  static List<String> outermost(List<String> folders) {
    return folders.stream()
        .distinct()
        .filter(f -> folders.stream().noneMatch(other -> f.startsWith(other + "/")))
        .collect(Collectors.toUnmodifiableList());
  }

  /**
   * The policy of a stage that writes only under {@code workFolder} ({@link Stage#RECORDER}); empty
   * when it is not on S3.
   */
  public static Optional<TableSessionPolicy> ofWorkLocation(String workFolder) {
    String folder = s3Folder(workFolder);
    return folder == null
        ? Optional.empty()
        : Optional.of(new TableSessionPolicy(Stage.RECORDER, List.of(folder)));
  }

  /**
   * {@code s3://bucket/prefix} for an S3 location ({@code s3a://} and {@code s3n://} as {@code
   * s3://}), without a trailing slash; null for any other scheme.
   */
  static String s3Folder(String location) {
    String lower = location.toLowerCase(Locale.ROOT);
    if (!lower.startsWith("s3://") && !lower.startsWith("s3a://") && !lower.startsWith("s3n://")) {
      return null;
    }
    String folder = "s3://" + location.substring(location.indexOf("://") + 3);
    while (folder.endsWith("/")) {
      folder = folder.substring(0, folder.length() - 1);
    }
    return folder;
  }

  /** The ARNs of the objects under the write folders: {@code arn:aws:s3:::bucket/prefix/*}. */
  public List<String> writeResources() {
    List<String> resources = new ArrayList<>();
    for (String folder : writeFolders) {
      // a bucket root (s3://bucket) becomes arn:aws:s3:::bucket/*, every object of the bucket
      resources.add("arn:aws:s3:::" + literal(folder.substring("s3://".length())) + "/*");
    }
    return resources;
  }

  /** The policy document, compact JSON, as AssumeRole's {@code Policy} takes it. */
  public String json() {
    String document =
        "{\"Version\":\"2012-10-17\",\"Statement\":["
            + "{\"Sid\":\"AsTheRole\",\"Effect\":\"Allow\",\"NotAction\":\"s3:*\",\"Resource\":\"*\"},"
            + "{\"Sid\":\"Read\",\"Effect\":\"Allow\",\"Action\":"
            + array(READ_ACTIONS)
            + ",\"Resource\":\"*\"},"
            + "{\"Sid\":\"WriteTableFolders\",\"Effect\":\"Allow\",\"Action\":"
            + array(WRITE_ACTIONS)
            + ",\"Resource\":"
            + array(writeResources())
            + "}]}";
    if (document.length() > MAX_CHARACTERS) {
      throw new OutsideDeploymentScopeException(
          String.format(
              "The session policy for %s is %d characters, over STS's %d: folders %s",
              stage, document.length(), MAX_CHARACTERS, writeFolders));
    }
    for (char c : document.toCharArray()) {
      if (c < 0x20 || c > 0xFF) {
        throw new OutsideDeploymentScopeException(
            "A folder of the table holds a character STS does not take in a session policy (U+"
                + String.format("%04X", (int) c)
                + "): "
                + writeFolders);
      }
    }
    return document;
  }

  /**
   * A key prefix as IAM reads it literally: {@code *}, {@code ?} and {@code $} are wildcards or
   * variables in a Resource, written {@code ${*}}, {@code ${?}}, {@code ${$}}; quotes and
   * backslashes escaped for JSON.
   */
  static String literal(String path) {
    StringBuilder out = new StringBuilder();
    for (char c : path.toCharArray()) {
      switch (c) {
        case '*', '?', '$' -> out.append("${").append(c).append('}');
        case '"', '\\' -> out.append('\\').append(c);
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  private static String array(List<String> values) {
    return values.stream().map(v -> "\"" + v + "\"").collect(Collectors.joining(",", "[", "]"));
  }
}
