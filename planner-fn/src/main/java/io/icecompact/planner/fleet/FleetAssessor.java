package io.icecompact.planner.fleet;

import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.IcecompactException;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.error.InvalidTablePolicyException;
import io.icecompact.core.filter.JobFilter;
import io.icecompact.core.job.JobAction;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.options.RewriteOptions;
import io.icecompact.core.policy.CareStep;
import io.icecompact.core.policy.EqualityDeletesAction;
import io.icecompact.core.policy.TablePolicy;
import io.icecompact.core.table.TableAccess;
import io.icecompact.core.text.ByteSize;
import io.icecompact.planner.RewritePlanner;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.PropertyUtil;

/**
 * The decision tree of docs/fleet.md ("Deciding per table") over the tables of one or more
 * namespaces: per table its health, its policy and a decision, ranked so that the tables to compact
 * come first, highest score first.
 *
 * <p>Reads metadata and plans (the planner's dry run); writes nothing.
 */
public final class FleetAssessor {
  /**
   * Decisions to compact first, then by score, then by name so equal scores rank the same way
   * twice.
   */
  public static final Comparator<TableAssessment> RANKING =
      Comparator.comparing((TableAssessment a) -> !a.decision().startsJob())
          .thenComparing(Comparator.comparingDouble(TableAssessment::score).reversed())
          .thenComparing(TableAssessment::table);

  private final TableAccess access;
  private final LongSupplier clock;
  private final List<CareStep> sweepSteps;

  public FleetAssessor(TableAccess access) {
    this(access, (List<CareStep>) null);
  }

  /**
   * @param sweepSteps the care steps of a table that does not set {@code icecompact.steps} (null:
   *     {@link TablePolicy#DEFAULT_STEPS}, which delete nothing)
   */
  public FleetAssessor(TableAccess access, List<CareStep> sweepSteps) {
    this(access, System::currentTimeMillis, sweepSteps);
  }

  FleetAssessor(TableAccess access, LongSupplier clock) {
    this(access, clock, null);
  }

  FleetAssessor(TableAccess access, LongSupplier clock, List<CareStep> sweepSteps) {
    this.access = access;
    this.clock = clock;
    this.sweepSteps = sweepSteps == null ? null : List.copyOf(sweepSteps);
  }

  /** Every table of {@code namespaces}, ranked. An unknown namespace is bad input. */
  public List<TableAssessment> assess(List<String> namespaces) {
    return assess(namespaces, Deadline.none(), "").ranked();
  }

  /**
   * The tables of {@code namespaces}, ranked, as far as {@code deadline} allows. Every namespace is
   * listed first, so that the number left out is known; then the tables are assessed one by one,
   * starting at a place in the list that {@code seed} (the sweep's execution name) picks, so that
   * sweeps cut short by their deadline do not always leave out the same tables. The deadline is
   * checked before each listing and each table; a table's assessment is not interrupted, so the
   * deadline must leave a margin for the slowest one (planning a 100k-file table took 7 s). An
   * unknown namespace is bad input.
   */
  public FleetAssessment assess(List<String> namespaces, Deadline deadline, String seed) {
    Set<String> tables = new LinkedHashSet<>();
    List<String> unlisted = new ArrayList<>();
    for (String namespace : namespaces) {
      if (deadline.passed()) {
        unlisted.add(namespace);
        continue;
      }
      for (TableIdentifier id : listTables(namespace)) {
        tables.add(id.toString());
      }
    }
    List<String> order = new ArrayList<>(tables);
    if (!order.isEmpty() && !deadline.isNone()) {
      Collections.rotate(order, -Math.floorMod(String.valueOf(seed).hashCode(), order.size()));
    }
    List<TableAssessment> assessments = new ArrayList<>();
    List<String> left = new ArrayList<>();
    for (String name : order) {
      if (!left.isEmpty() || deadline.passed()) {
        left.add(name);
        continue;
      }
      assessments.add(assessOrUnreadable(name));
    }
    assessments.sort(RANKING);
    return new FleetAssessment(assessments, notAssessed(left, unlisted, assessments.size()));
  }

  private static FleetAssessment.NotAssessed notAssessed(
      List<String> left, List<String> unlisted, int assessed) {
    if (left.isEmpty() && unlisted.isEmpty()) {
      return FleetAssessment.NotAssessed.NONE;
    }
    String reason =
        String.format(
            "the assessment reached its deadline after %d tables: %d tables listed but not assessed%s; the next"
                + " sweep starts elsewhere in the list",
            assessed,
            left.size(),
            unlisted.isEmpty() ? "" : ", " + unlisted.size() + " namespaces not listed");
    return new FleetAssessment.NotAssessed(
        left.size(),
        left.subList(0, Math.min(left.size(), FleetAssessment.NAMES_LISTED_MAX)),
        unlisted,
        reason);
  }

  private List<TableIdentifier> listTables(String namespace) {
    if (namespace == null || namespace.isBlank()) {
      throw new InvalidJobInputException("Namespace is missing (e.g. 'analytics')");
    }
    try {
      return access.catalog().listTables(Namespace.of(namespace.split("\\.")));
    } catch (NoSuchNamespaceException e) {
      throw new InvalidJobInputException("Namespace not found: " + namespace, e);
    } catch (RuntimeException e) {
      // a throttled or unavailable catalog is worth the state machine's retry; a refusal (403) is
      // not
      throw FailureClassifier.classify(
          e, "Cannot list the tables of namespace " + namespace, InvalidJobInputException::new);
    }
  }

  /**
   * One table of a fleet: a table that cannot be read must not stop the assessment of the others.
   */
  private TableAssessment assessOrUnreadable(String name) {
    try {
      return assess(name);
    } catch (RuntimeException e) {
      String type = e instanceof IcecompactException ? "" : e.getClass().getSimpleName() + ": ";
      return new TableAssessment(
          name, null, null, Decision.SKIP_UNREADABLE, type + e.getMessage(), null);
    }
  }

  /**
   * One table's assessment; the table's policy problems become its decision. Fails when the table
   * or its metadata cannot be read ({@link #assess(List)} records that as {@link
   * Decision#SKIP_UNREADABLE}).
   */
  public TableAssessment assess(String name) {
    Table table = access.loadTable(name);
    TableHealth health = TableHealth.of(name, table);
    TablePolicy policy;
    try {
      policy =
          TablePolicy.of(
              name,
              table.properties(),
              table.schema(),
              health.formatVersion(),
              health.deleteFiles(),
              sweepSteps);
    } catch (InvalidTablePolicyException e) {
      return new TableAssessment(
          name, health, null, Decision.SKIP_INVALID_POLICY, e.getMessage(), null);
    }
    if (!policy.enabled()) {
      return new TableAssessment(
          name, health, policy, Decision.SKIP_DISABLED, TablePolicy.ENABLED + " is false", null);
    }
    if (health.lastCompactionMillis() != null && !policy.minInterval().isZero()) {
      Duration since = Duration.ofMillis(clock.getAsLong() - health.lastCompactionMillis());
      if (since.compareTo(policy.minInterval()) < 0) {
        return new TableAssessment(
            name,
            health,
            policy,
            Decision.SKIP_TOO_SOON,
            String.format(
                "last compaction at %s, %s ago; %s is %s",
                Instant.ofEpochMilli(health.lastCompactionMillis()),
                readable(since),
                TablePolicy.MIN_INTERVAL,
                policy.minInterval()),
            null);
      }
    }
    EqualityDeleteCosts equalityDeletes = equalityDeleteCosts(table, health, policy);
    String equalityReason = "";
    EqualityDeleteChoice choice = null;
    if (equalityDeletes != null) {
      choice = EqualityDeleteChoice.of(policy.equalityDeletes(), equalityDeletes);
      if (choice.action() == JobAction.CONVERT_EQUALITY_DELETES) {
        return new TableAssessment(
            name,
            health,
            policy,
            Decision.CONVERT_EQUALITY_DELETES,
            choice.reason(),
            null,
            equalityDeletes);
      }
      equalityReason = "; equality deletes: " + choice.reason();
    }
    RewritePlanner.PlannedJob planned;
    String thresholdReason = "";
    try {
      Planned plan = plan(name, table, policy);
      policy = plan.policy();
      planned = plan.job();
      if (plan.thresholdLeftOut() != null) {
        thresholdReason = "; " + plan.thresholdLeftOut().reason();
      }
      if (choice != null && policy.equalityDeletes() == EqualityDeletesAction.AUTO) {
        if (planned.plan() == null) {
          // the tree chose a rewrite, but no compaction would take the files: converting is then
          // the only job that removes the equality deletes readers join on every scan
          return new TableAssessment(
              name,
              health,
              policy,
              Decision.CONVERT_EQUALITY_DELETES,
              choice.figures()
                  + "; no compaction to do ("
                  + planned.reason()
                  + thresholdReason
                  + "): converted, reading about "
                  + ByteSize.readable(equalityDeletes.convert().bytesRead())
                  + " of key columns and delete files",
              null,
              equalityDeletes);
        }
        long taken = filesWithEqualityDeletes(planned);
        if (taken < equalityDeletes.dataFiles()) {
          equalityReason +=
              String.format(
                  Locale.ROOT,
                  "; this compaction takes %d of those %d data files, the others keep their"
                      + " equality deletes until a later sweep converts them",
                  taken,
                  equalityDeletes.dataFiles());
        }
      }
    } catch (InvalidJobInputException e) {
      if (!rejectsAnOption(policy, e)) {
        throw e; // the table itself (e.g. dropped since it was loaded): not its policy
      }
      // an option Iceberg checks only when planning (a range rule, e.g. max-file-size below the
      // target)
      return new TableAssessment(
          name,
          health,
          null,
          Decision.SKIP_INVALID_POLICY,
          policy.optionRejectedByPlanner(name, e).getMessage(),
          null);
    }
    if (planned.plan() == null) {
      return new TableAssessment(
          name,
          health,
          policy,
          Decision.SKIP_NO_OP,
          planned.reason() + equalityReason + thresholdReason,
          null,
          equalityDeletes);
    }
    CompactionPrediction prediction = predict(table, policy, planned);
    return new TableAssessment(
        name,
        health,
        policy,
        Decision.COMPACT,
        String.format(
                "%d groups of %d files would be rewritten into about %d",
                prediction.groups(), prediction.dataFilesRead(), prediction.filesWrittenEstimate())
            + equalityReason
            + thresholdReason,
        prediction,
        equalityDeletes);
  }

  /**
   * The data files of {@code planned} that an equality delete applies to, as Iceberg matched them.
   */
  private static long filesWithEqualityDeletes(RewritePlanner.PlannedJob planned) {
    long files = 0;
    for (int group = 0; group < planned.plan().groups().size(); group++) {
      for (FileScanTask task : planned.tasks(group)) {
        if (task.deletes().stream().anyMatch(d -> d.content() == FileContent.EQUALITY_DELETES)) {
          files++;
        }
      }
    }
    return files;
  }

  /**
   * The policy a job would run with, its dry run, and the v2 default {@code delete-file-threshold}
   * when it was left out ({@link V2DeleteThreshold}), else null.
   */
  private record Planned(
      TablePolicy policy, RewritePlanner.PlannedJob job, V2DeleteThreshold thresholdLeftOut) {}

  private Planned plan(String name, Table table, TablePolicy policy) {
    RewritePlanner.PlannedJob planned = dryRun(name, policy);
    if (planned.plan() != null && V2DeleteThreshold.isDefault(table.properties(), policy)) {
      V2DeleteThreshold threshold =
          V2DeleteThreshold.of(planned, policy, targetFileSize(table, policy));
      if (threshold.leaveOut()) {
        TablePolicy without = policy.withoutOption(RewriteOptions.DELETE_FILE_THRESHOLD);
        return new Planned(without, dryRun(name, without), threshold);
      }
    }
    return new Planned(policy, planned, null);
  }

  private RewritePlanner.PlannedJob dryRun(String name, TablePolicy policy) {
    return new RewritePlanner(access)
        .dryRun(new JobSpec(null, name, Map.of(), policy.options(), null, policy.where(), null));
  }

  /**
   * What rewriting or converting the table's live equality deletes would cost, with the rewrite's
   * target size; null when it has none that applies to a data file. Only a table with equality
   * delete files pays for the second read of its manifests (their {@code column_sizes}).
   */
  private static EqualityDeleteCosts equalityDeleteCosts(
      Table table, TableHealth health, TablePolicy policy) {
    if (health.equalityDeleteFiles() == 0 || health.snapshotId() == null) {
      return null;
    }
    EqualityDeleteScan scan =
        EqualityDeleteScan.of(
            table,
            table.snapshot(health.snapshotId()),
            JobFilter.resolve(null, policy.where(), table.schema()));
    return scan == null ? null : EqualityDeleteCosts.of(scan, targetFileSize(table, policy));
  }

  /** The planner's message starts so for Iceberg's checks, and quotes our own options by name. */
  private static boolean rejectsAnOption(TablePolicy policy, InvalidJobInputException e) {
    String message = String.valueOf(e.getMessage());
    return message.startsWith("Invalid rewrite option")
        || TablePolicy.namedOption(policy.options(), message).isPresent();
  }

  static CompactionPrediction predict(
      Table table, TablePolicy policy, RewritePlanner.PlannedJob planned) {
    long target = targetFileSize(table, policy);
    List<PlannedGroup> groups = planned.plan().groups();
    long dataFiles = 0;
    long dataBytes = 0;
    long deletedRows = 0;
    long filesWritten = 0;
    long bytesWritten = 0;
    Set<String> deleteFiles = new HashSet<>();
    Map<String, Long> deleteBytes = new HashMap<>();
    for (int index = 0; index < groups.size(); index++) {
      List<FileScanTask> tasks = planned.tasks(index);
      long groupBytes = 0;
      long groupRows = 0;
      long groupDeleted = 0;
      Set<String> groupWideDeletes = new HashSet<>();
      for (FileScanTask task : tasks) {
        dataFiles++;
        groupBytes += task.length();
        groupRows += task.file().recordCount();
        long positions = 0;
        for (DeleteFile delete : task.deletes()) {
          deleteFiles.add(delete.location());
          deleteBytes.putIfAbsent(delete.location(), delete.fileSizeInBytes());
          if (ContentFileUtil.isFileScoped(delete)) {
            positions += delete.recordCount();
          } else if (groupWideDeletes.add(delete.location())) {
            groupDeleted += delete.recordCount();
          }
        }
        groupDeleted += Math.min(positions, task.file().recordCount());
      }
      groupDeleted = Math.min(groupDeleted, groupRows);
      long written =
          groupRows == 0 ? 0 : Math.round(groupBytes * (1 - (double) groupDeleted / groupRows));
      dataBytes += groupBytes;
      deletedRows += groupDeleted;
      bytesWritten += written;
      filesWritten += Math.max(1, (written + target - 1) / target);
    }
    long deleteFileBytes = deleteBytes.values().stream().mapToLong(Long::longValue).sum();
    long filesRead = dataFiles + deleteFiles.size();
    return new CompactionPrediction(
        groups.size(),
        planned.plan().skippedGroups(),
        dataFiles,
        deleteFiles.size(),
        dataBytes + deleteFileBytes,
        deletedRows,
        bytesWritten,
        filesWritten,
        filesRead,
        filesWritten,
        Math.max(0, filesRead - filesWritten),
        target);
  }

  /**
   * The job's target: the policy's option, else the table's write target, else Iceberg's 512 MB.
   */
  static long targetFileSize(Table table, TablePolicy policy) {
    String option = policy.options().get(RewriteOptions.TARGET_FILE_SIZE_BYTES);
    if (option != null) {
      return Long.parseLong(option.trim());
    }
    return PropertyUtil.propertyAsLong(
        table.properties(),
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
  }

  private static String readable(Duration duration) {
    long minutes = duration.toMinutes();
    return minutes >= 120
        ? (minutes / 60) + " h"
        : minutes >= 1 ? minutes + " min" : duration.toSeconds() + " s";
  }
}
