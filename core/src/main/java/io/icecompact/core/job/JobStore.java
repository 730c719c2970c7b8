package io.icecompact.core.job;

import io.icecompact.core.error.AttemptClaimException;
import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.PlanIntegrityException;
import io.icecompact.core.io.CreateIfAbsent;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Reads and writes a job's documents in its work location through the table's FileIO. The plan
 * index is checked against the SHA-256 the planner returned, and each group document against the
 * digest in the index, so a changed plan is refused instead of used.
 */
public final class JobStore {
  /**
   * Far above any retry policy's attempts: reaching it means something re-runs a group without end.
   */
  static final int MAX_ATTEMPTS = 10_000;

  private final FileIO io;
  private final CreateIfAbsent creates;

  /**
   * A store whose attempt claims are atomic where core knows how (local files; see {@link
   * #claimAttempt}).
   */
  public JobStore(FileIO io) {
    this(io, CreateIfAbsent.forFileIO(io));
  }

  /** A store that claims attempts with {@code creates} wherever it supports the work location. */
  public JobStore(FileIO io, CreateIfAbsent creates) {
    this.io = io;
    this.creates = creates;
  }

  /** Stores the plan index and returns its SHA-256 (hex). */
  public String writePlan(WorkLocation work, JobPlan plan) {
    byte[] bytes = JobJson.toBytes(plan);
    write(work.plan(), bytes);
    return sha256(bytes);
  }

  /**
   * Reads the plan of job {@code jobId}, refusing it when its digest is not {@code expectedSha256}
   * or it belongs to another job.
   */
  public JobPlan readPlan(String jobId, String planLocation, String expectedSha256) {
    byte[] bytes =
        read(planLocation)
            .orElseThrow(() -> new PlanIntegrityException("Plan not found at " + planLocation));
    String actual = sha256(bytes);
    if (expectedSha256 == null || !expectedSha256.equalsIgnoreCase(actual)) {
      throw new PlanIntegrityException(
          String.format(
              "Plan %s has SHA-256 %s but the job expects %s; refusing a changed plan",
              planLocation, actual, expectedSha256));
    }
    JobPlan plan = JobJson.fromBytes(bytes, JobPlan.class, "plan " + planLocation);
    if (!plan.jobId().equals(jobId)) {
      throw new PlanIntegrityException(
          "Plan " + planLocation + " belongs to job " + plan.jobId() + ", not " + jobId);
    }
    return plan;
  }

  /**
   * Reads the plan {@code ref} names ({@link #readPlan(String, String, String)}), refusing it too
   * when it is another table's: a stage invoked directly is handed the table and the plan
   * separately, and checks the table against the deployment's bounds.
   */
  public JobPlan readPlan(PlanRef ref) {
    JobPlan plan = readPlan(ref.jobId(), ref.planLocation(), ref.planSha256());
    if (!plan.table().equals(ref.table())) {
      throw new PlanIntegrityException(
          String.format(
              "Plan %s is for table %s, not %s", ref.planLocation(), plan.table(), ref.table()));
    }
    return plan;
  }

  /**
   * The SHA-256 of the plan stored at {@code planLocation}, empty when there is none: for a re-run
   * of a job's committer, whose execution state (where the planner's digest travelled) is gone. The
   * plan is then trusted as the work location holds it; each group's document is still checked
   * against the plan's digest.
   */
  public Optional<String> storedPlanSha256(String planLocation) {
    return read(planLocation).map(JobStore::sha256);
  }

  /**
   * Stores group {@code groupIndex}'s document ({@link GroupPlanDocument}) and returns its SHA-256
   * (hex), for the group's entry in the plan index.
   */
  public String writeGroupPlan(
      WorkLocation work,
      String jobId,
      int groupIndex,
      List<FileScanTask> tasks,
      Map<Integer, PartitionSpec> specs) {
    byte[] bytes = GroupPlanDocument.toBytes(jobId, groupIndex, tasks, specs);
    write(work.groupPlan(groupIndex), bytes);
    return sha256(bytes);
  }

  /**
   * The scan tasks of group {@code groupIndex} of {@code plan}, refusing a document whose digest is
   * not the one the plan index holds for it.
   */
  public List<FileScanTask> readGroupTasks(WorkLocation work, JobPlan plan, int groupIndex) {
    PlannedGroup group = plan.group(groupIndex);
    String location = work.groupPlan(groupIndex);
    byte[] bytes =
        read(location)
            .orElseThrow(() -> new PlanIntegrityException("Group plan not found at " + location));
    String actual = sha256(bytes);
    if (group.sha256() == null || !group.sha256().equalsIgnoreCase(actual)) {
      throw new PlanIntegrityException(
          String.format(
              "Group plan %s has SHA-256 %s but the plan index expects %s; refusing a changed plan",
              location, actual, group.sha256()));
    }
    return GroupPlanDocument.tasks(bytes, plan.jobId(), groupIndex, "group plan " + location);
  }

  public void writeGroupResult(WorkLocation work, GroupResult result) {
    write(work.groupResult(result.groupIndex()), JobJson.toBytes(result));
  }

  public Optional<GroupResult> readGroupResult(WorkLocation work, int groupIndex) {
    String location = work.groupResult(groupIndex);
    return read(location).map(bytes -> JobJson.fromBytes(bytes, GroupResult.class, location));
  }

  public void writeGroupFailure(WorkLocation work, GroupFailure failure) {
    write(work.groupFailure(failure.groupIndex()), JobJson.toBytes(failure));
  }

  public Optional<GroupFailure> readGroupFailure(WorkLocation work, int groupIndex) {
    String location = work.groupFailure(groupIndex);
    return read(location).map(bytes -> JobJson.fromBytes(bytes, GroupFailure.class, location));
  }

  /**
   * Numbers a worker attempt when the caller cannot (a Step Functions retry re-sends the same
   * input): the first attempt number whose marker this call creates. Attempts of one group can
   * overlap (a retry after a lost answer starts while the first attempt still runs), and outputs
   * are named by attempt, so two live attempts must never hold one number: each marker is created
   * with an atomic create-if-absent ({@link CreateIfAbsent}: {@code If-None-Match: *} on S3, {@code
   * CREATE_NEW} on a local disk), and a number taken (or being taken) by another attempt is
   * skipped. Numbers may have gaps; never duplicates.
   *
   * <p>Where the work location has no atomic create (a FileIO other than S3's or local files), the
   * marker is checked and then written, as before: overlapping attempts can then take one number.
   *
   * <p>A marker holds its attempt number and a token of this claim (a random UUID): a create whose
   * answer was lost and which the SDK retried meets its own marker, and tells it from another
   * attempt's by the token ({@code S3CreateIfAbsent} in the worker). JobStore itself never reads
   * markers, only creates them.
   */
  public int claimAttempt(WorkLocation work, int groupIndex) {
    String token = UUID.randomUUID().toString();
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      String marker = work.attemptMarker(groupIndex, attempt);
      byte[] body = (attempt + "\n" + token + "\n").getBytes(StandardCharsets.UTF_8);
      if (creates.supports(marker)) {
        if (createIfAbsent(marker, body)) {
          return attempt;
        }
      } else if (!exists(marker)) {
        // no atomic create for this storage: check-then-write, racy under overlapping attempts
        write(marker, body);
        return attempt;
      }
    }
    throw new AttemptClaimException(
        String.format(
            "Group %d of %s has no free attempt number: all %d are marked as taken under %s",
            groupIndex, work.jobDirectory(), MAX_ATTEMPTS, work.attemptMarker(groupIndex, 1)));
  }

  /**
   * Records that attempt {@code attempt} of a group is about to create the output file {@code
   * location}. A worker killed mid-group (Lambda's timeout, a crash) reports no outputs; its
   * entries are how the committer still finds and deletes what it wrote.
   */
  public void recordOutput(WorkLocation work, int groupIndex, int attempt, String location) {
    String fileName = location.substring(location.lastIndexOf('/') + 1);
    write(
        work.outputEntry(groupIndex, attempt, fileName), location.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The locations of the output entries of every attempt of the job; none when the FileIO cannot
   * list (the outputs of killed attempts then stay as orphans, as before entries existed).
   */
  public List<String> outputEntries(WorkLocation work) {
    List<String> entries = new ArrayList<>();
    if (io instanceof SupportsPrefixOperations listing) {
      try {
        listing.listPrefix(work.outputEntries()).forEach(info -> entries.add(info.location()));
      } catch (UncheckedIOException e) {
        // HadoopFileIO lists a folder, which exists only once an attempt recorded an output: when
        // no group wrote anything, there are no outputs, not an error (S3 lists an empty prefix)
        if (!(e.getCause() instanceof FileNotFoundException)) {
          throw e;
        }
      }
    }
    return entries;
  }

  /** The output location an entry holds. */
  public Optional<String> outputOfEntry(String entryLocation) {
    return read(entryLocation).map(bytes -> new String(bytes, StandardCharsets.UTF_8));
  }

  public <T> void writeDocument(String location, T document) {
    write(location, JobJson.toBytes(document));
  }

  public <T> Optional<T> readDocument(String location, Class<T> type) {
    return read(location).map(bytes -> JobJson.fromBytes(bytes, type, location));
  }

  private void write(String location, byte[] bytes) {
    OutputFile file = io.newOutputFile(location);
    try (OutputStream out = file.createOrOverwrite()) {
      out.write(bytes);
    } catch (IOException | RuntimeException e) {
      throw FailureClassifier.classify(e, "Cannot write " + location, PlanIntegrityException::new);
    }
  }

  private boolean createIfAbsent(String location, byte[] bytes) {
    try {
      return creates.createIfAbsent(location, bytes);
    } catch (RuntimeException e) {
      throw FailureClassifier.classify(e, "Cannot create " + location, PlanIntegrityException::new);
    }
  }

  private boolean exists(String location) {
    try {
      return io.newInputFile(location).exists();
    } catch (NotFoundException e) {
      return false;
    } catch (RuntimeException e) {
      throw FailureClassifier.classify(e, "Cannot read " + location, PlanIntegrityException::new);
    }
  }

  private Optional<byte[]> read(String location) {
    InputFile file = io.newInputFile(location);
    try {
      if (!file.exists()) {
        return Optional.empty();
      }
      try (InputStream in = file.newStream()) {
        return Optional.of(in.readAllBytes());
      }
    } catch (NotFoundException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw FailureClassifier.classify(
          new UncheckedIOException(e), "Cannot read " + location, PlanIntegrityException::new);
    } catch (RuntimeException e) {
      // e.g. an S3Exception (throttling, 5xx): typed, so that Step Functions' Retry can match it
      throw FailureClassifier.classify(e, "Cannot read " + location, PlanIntegrityException::new);
    }
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JRE", e);
    }
  }
}
