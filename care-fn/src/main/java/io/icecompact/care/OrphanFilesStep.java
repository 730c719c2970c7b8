package io.icecompact.care;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.policy.CareStep;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Deletes files in the table's {@code data/} and {@code metadata/} folders that no snapshot of any
 * ref reaches ({@link ReachableFiles}) and that are older than a minimum age, and the work
 * locations of finished icecompact jobs ({@code <table>/_icecompact/<job>}) older than the same
 * age.
 *
 * <p>Why the age: a writer writes its data files, manifests and metadata file before its commit
 * makes them reachable, so a file that looks orphaned may be a commit in flight (a compaction
 * worker's output, a streaming writer's batch). Three days (the default, as Spark's {@code
 * remove_orphan_files}) outlasts any writer's write-to-commit time; under one day is refused. The
 * orphans this is for are real and common: a commit whose state is unknown (a catalog's 500) leaves
 * its output for this step by design, and so does a job stopped between its workers and its
 * committer.
 *
 * <p>When in doubt a file is kept: when its location matches a reachable file's path but not its
 * scheme or bucket (it may be the same object named differently, e.g. {@code s3a://} against {@code
 * s3://}), when its age is unknown, when an unfinished job's group result names it as output (its
 * committer may still commit it), and when the data or metadata folder is outside the table's
 * location (it may be shared with another table). The listing happens before the metadata is read,
 * and the metadata is read again just before deleting, so a commit that lands meanwhile protects
 * its files.
 */
public final class OrphanFilesStep implements TableCareStep<OrphanFilesStep.Report> {
  public static final String NAME = CareStep.REMOVE_ORPHANS.propertyName();

  public static final Duration DEFAULT_MIN_AGE = Duration.ofDays(3);
  public static final Duration SAFE_MIN_AGE = Duration.ofDays(1);

  private static final String ICEBERG_REFUSAL =
      "Iceberg: \"Cannot delete orphan files: GC is disabled (deleting files may corrupt other tables)\"";

  /**
   * The job id in an output's name (OutputFileFactory's {@code <partition>-<task>-<operation
   * id>-<count>}).
   */
  private static final Pattern JOB_OUTPUT = Pattern.compile("-(job-[0-9a-f]{12})-\\d+\\.[a-z]+$");

  private final SharingLookup lookup;
  private final String tableName;
  private final Duration minAge;
  private final String workBase;
  private final Clock clock;
  private final Consumer<Table> beforeRecheck;

  /**
   * The default minimum age, jobs' work locations in the default place ({@code
   * <table>/_icecompact}).
   *
   * @param catalog the table's catalog, whose every table is checked for files this one shares
   * @param tableName the table's identifier in it, as jobs name it
   */
  public OrphanFilesStep(Catalog catalog, String tableName) {
    this(catalog, tableName, DEFAULT_MIN_AGE, null, Clock.systemUTC(), table -> {});
  }

  /**
   * @param minAge files younger than this are kept; at least {@link #SAFE_MIN_AGE}
   * @param workBase the jobs' work location base when they name one (null: the default place)
   * @param beforeRecheck called after the orphans are chosen, before the metadata is read again
   *     (tests commit here)
   * @throws CareRefusedException when {@code minAge} is under one day
   */
  public OrphanFilesStep(
      Catalog catalog,
      String tableName,
      Duration minAge,
      String workBase,
      Clock clock,
      Consumer<Table> beforeRecheck) {
    this(
        catalog == null ? null : SharingLookup.of(catalog),
        tableName,
        minAge,
        workBase,
        clock,
        beforeRecheck);
  }

  /**
   * As {@link #OrphanFilesStep(Catalog, String, Duration, String, Clock, Consumer)}, with the
   * catalog's listing and the deployment's locations the sharing check screens by ({@link
   * SharingLookup}).
   */
  public OrphanFilesStep(
      SharingLookup lookup,
      String tableName,
      Duration minAge,
      String workBase,
      Clock clock,
      Consumer<Table> beforeRecheck) {
    if (minAge == null || minAge.compareTo(SAFE_MIN_AGE) < 0) {
      throw new CareRefusedException(
          String.format(
              "Refusing orphan removal with a minimum age of %s: under %s, a file a concurrent writer has written "
                  + "but not yet committed (a compaction worker's output, a streaming batch, a metadata file "
                  + "being swapped in) looks orphaned and would be deleted, corrupting the table when the "
                  + "commit lands. Use at least 1 day; the default is 3 days.",
              minAge, SAFE_MIN_AGE));
    }
    if (lookup == null || tableName == null || tableName.isBlank()) {
      // without the catalog, files other tables share could not be told from orphans
      throw new IllegalArgumentException("the catalog and the table's name are required");
    }
    this.lookup = lookup;
    this.tableName = tableName;
    this.minAge = minAge;
    this.workBase = workBase;
    this.clock = clock;
    this.beforeRecheck = beforeRecheck;
  }

  /**
   * What was listed, kept and deleted; deleted counts are files storage no longer has.
   *
   * @param filesListed files listed in the data and metadata folders
   * @param reachableFiles distinct locations the metadata reaches
   * @param orphansDeleted unreachable files older than the minimum age, deleted
   * @param youngOrphansKept unreachable files younger than the minimum age (or of unknown age),
   *     kept
   * @param locationMismatchesKept unreachable by location but with a reachable file's path, kept
   * @param unfinishedJobOutputsKept unreachable but named as output by a job without a final
   *     result, kept
   * @param workLocationsRemoved finished jobs' work locations removed
   * @param workLocationsKept jobs' work locations kept (unfinished, outcome unknown, or too young)
   * @param workFilesDeleted the files of the removed work locations
   * @param sharedFilesKept unreachable from this table but reached by another table of the catalog,
   *     kept
   * @param unseenJobOutputsKept named as an icecompact job's output whose work location is not
   *     under this table's work root (a job run with another {@code --work-location}: it may still
   *     commit them), kept
   * @param sharing which other tables share the table's folders
   * @param catalogChecked how many of the catalog's tables were listed and read, and those not
   *     checked with why
   * @param skippedFolders folders not listed, with the reason
   * @param problems a file deleted that still exists, or that the metadata reaches after all
   * @param dryRun true: nothing was deleted, the figures say what would be
   */
  public record Report(
      int filesListed,
      int reachableFiles,
      RemovedFiles orphansDeleted,
      int youngOrphansKept,
      int locationMismatchesKept,
      List<String> locationMismatchSample,
      int unfinishedJobOutputsKept,
      int workLocationsRemoved,
      int workLocationsKept,
      RemovedFiles workFilesDeleted,
      RemovedFiles sharedFilesKept,
      RemovedFiles unseenJobOutputsKept,
      String sharing,
      SharingTables.Coverage catalogChecked,
      List<String> skippedFolders,
      List<String> problems,
      boolean dryRun)
      implements CareReport {
    @Override
    public String summary() {
      String kept =
          (sharedFilesKept.count() == 0
                  ? ""
                  : String.format(", %d kept that other tables reach", sharedFilesKept.count()))
              + (unseenJobOutputsKept.count() == 0
                  ? ""
                  : String.format(
                      ", %d outputs of jobs whose work location is elsewhere kept",
                      unseenJobOutputsKept.count()))
              + (skippedFolders.isEmpty()
                  ? ""
                  : String.format(", %d folders skipped", skippedFolders.size()))
              + SharingTables.notCheckedNote(catalogChecked);
      return dryRun
          ? String.format(
              "would delete %d orphans (%d bytes) and %d finished jobs' work locations; %d younger than the minimum "
                  + "age kept%s",
              orphansDeleted.count(),
              orphansDeleted.bytes(),
              workLocationsRemoved,
              youngOrphansKept,
              kept)
          : String.format(
              "%d orphans deleted (%d bytes), %d younger than the minimum age kept, %d finished jobs' work locations "
                  + "removed%s",
              orphansDeleted.count(),
              orphansDeleted.bytes(),
              youngOrphansKept,
              workLocationsRemoved,
              kept);
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Report run(Table table) {
    return removeOrphans(table, false);
  }

  /**
   * What {@link #run} would delete now, decided the same way (refusals included); deletes nothing.
   */
  @Override
  public Report preview(Table table) {
    return removeOrphans(table, true);
  }

  private Report removeOrphans(Table table, boolean dryRun) {
    if (!(table.io() instanceof SupportsPrefixOperations io)) {
      throw new CareRefusedException(
          "Refusing orphan removal: the table's FileIO "
              + table.io().getClass().getName()
              + " cannot list files (it does not implement SupportsPrefixOperations)");
    }
    table.refresh();
    GcEnabled.require(table, tableName, NAME, ICEBERG_REFUSAL);
    SharingTables sharing = SharingTables.find(lookup, tableName, table, NAME);
    long cutoff = clock.millis() - minAge.toMillis();
    List<String> skipped = new ArrayList<>();
    List<String> problems = new ArrayList<>();

    // 1. list first: anything committed before the metadata is read below is then known reachable
    Map<String, FileInfo> listed = new LinkedHashMap<>();
    for (String folder : tableFolders(table, skipped)) {
      for (FileInfo file : listOrNone(io, FileLocations.child(folder, ""))) {
        if (FileLocations.isUnder(file.location(), folder)) {
          listed.putIfAbsent(FileLocations.normalized(file.location()), file);
        }
      }
    }
    String workRoot = workRoot(table);
    Map<String, List<FileInfo>> jobs = jobDirectories(io, workRoot);

    // 2. jobs: which are finished (removable when old), and what unfinished ones may still commit
    Set<String> unfinishedOutputs = new HashSet<>();
    List<String> removableJobs = new ArrayList<>();
    for (Map.Entry<String, List<FileInfo>> job : jobs.entrySet()) {
      WorkLocation work = new WorkLocation(FileLocations.child(workRoot, job.getKey()));
      Optional<JobStatus> status = finalStatus(table, work);
      if (status.isEmpty() || status.get() == JobStatus.UNKNOWN) {
        unfinishedOutputs.addAll(outputsNamed(table, job.getValue()));
      } else if (job.getValue().stream().allMatch(file -> isOld(file, cutoff))) {
        removableJobs.add(job.getKey());
      }
    }

    // 3. what the metadata reaches, read after the listing
    table.refresh();
    ReachableFiles reachable = ReachableFiles.of(table);
    List<FileInfo> orphans = new ArrayList<>();
    int young = 0;
    int unfinishedKept = 0;
    List<String> mismatches = new ArrayList<>();
    List<String> shared = new ArrayList<>();
    List<String> unseenJobOutputs = new ArrayList<>();
    for (FileInfo file : listed.values()) {
      if (reachable.contains(file.location())) {
        continue;
      }
      String samePath = reachable.samePathAs(file.location());
      String sharer = sharing.reachedBy(file.location());
      String unseenJob = jobOfOutput(file.location());
      if (samePath != null) {
        mismatches.add(file.location() + " (reachable as " + samePath + ")");
      } else if (sharer != null) {
        shared.add(file.location() + " (reached by " + sharer + ")");
      } else if (unfinishedOutputs.contains(FileLocations.normalized(file.location()))) {
        unfinishedKept++;
      } else if (unseenJob != null && !jobs.containsKey(unseenJob)) {
        unseenJobOutputs.add(
            file.location()
                + " (output of "
                + unseenJob
                + ", whose work location is not under "
                + workRoot
                + ")");
      } else if (!isOld(file, cutoff)) {
        young++;
      } else {
        orphans.add(file);
      }
    }

    // 4. read the metadata again: a commit since step 3 protects its files
    beforeRecheck.accept(table);
    table.refresh();
    reachable.addNewSnapshots(table);
    orphans.removeIf(
        file ->
            reachable.contains(file.location()) || reachable.samePathAs(file.location()) != null);
    sharing.refresh(lookup.catalog()); // and the sharers' commits since
    orphans.removeIf(file -> sharing.reachedBy(file.location()) != null);

    List<FileInfo> workFiles = new ArrayList<>();
    removableJobs.forEach(job -> workFiles.addAll(jobs.get(job)));
    RemovedFiles orphansDeleted = dryRun ? wouldDelete(orphans) : delete(table, orphans, problems);
    RemovedFiles workDeleted = dryRun ? wouldDelete(workFiles) : delete(table, workFiles, problems);

    // 5. verify from metadata: nothing deleted is reachable now (what was read before did not reach
    // it; only
    // the snapshots committed since are read)
    if (!dryRun) {
      table.refresh();
      reachable.addNewSnapshots(table);
      for (FileInfo file : orphans) {
        if (reachable.contains(file.location())) {
          problems.add("deleted " + file.location() + ", which the table's metadata now reaches");
        }
      }
    }
    return new Report(
        listed.size(),
        reachable.size(),
        orphansDeleted,
        young,
        mismatches.size(),
        mismatches.subList(0, Math.min(RemovedFiles.SAMPLE, mismatches.size())),
        unfinishedKept,
        removableJobs.size(),
        jobs.size() - removableJobs.size(),
        workDeleted,
        RemovedFiles.of(shared, 0),
        RemovedFiles.of(unseenJobOutputs, 0),
        sharing.describeSharers(),
        sharing.coverage(),
        skipped,
        problems,
        dryRun);
  }

  /**
   * The files under {@code prefix}; none when the folder does not exist. S3 lists an absent prefix
   * as empty, HadoopFileIO throws FileNotFoundException (a Hadoop table that never ran a job has no
   * work root).
   */
  private static List<FileInfo> listOrNone(SupportsPrefixOperations io, String prefix) {
    List<FileInfo> files = new ArrayList<>();
    try {
      io.listPrefix(prefix).forEach(files::add);
    } catch (UncheckedIOException e) {
      if (!(e.getCause() instanceof java.io.FileNotFoundException)) {
        throw e;
      }
    }
    return files;
  }

  private static RemovedFiles wouldDelete(List<FileInfo> files) {
    return RemovedFiles.of(
        files.stream().map(FileInfo::location).toList(),
        files.stream().mapToLong(FileInfo::size).sum());
  }

  /** The generated job id an output file's name carries, or null. */
  static String jobOfOutput(String location) {
    Matcher matcher = JOB_OUTPUT.matcher(location.substring(location.lastIndexOf('/') + 1));
    return matcher.find() ? matcher.group(1) : null;
  }

  /** The data and metadata folders, each only when it is inside the table's location. */
  private static List<String> tableFolders(Table table, List<String> skipped) {
    Map<String, String> properties = table.properties();
    String data =
        firstSet(
            properties,
            TableProperties.WRITE_DATA_LOCATION,
            TableProperties.OBJECT_STORE_PATH,
            TableProperties.WRITE_FOLDER_STORAGE_LOCATION);
    String metadata = properties.get(TableProperties.WRITE_METADATA_LOCATION);
    List<String> folders = new ArrayList<>();
    for (String[] folder :
        new String[][] {
          {"data", data == null ? FileLocations.child(table.location(), "data") : data},
          {
            "metadata",
            metadata == null ? FileLocations.child(table.location(), "metadata") : metadata
          }
        }) {
      String location = folder[1];
      if (FileLocations.isUnder(location, table.location())
          && !FileLocations.normalized(location)
              .equals(FileLocations.normalized(table.location()))) {
        folders.add(location);
      } else {
        skipped.add(
            String.format(
                "%s folder %s is not inside the table location %s: it may hold other tables' files",
                folder[0], location, table.location()));
      }
    }
    return folders;
  }

  private static String firstSet(Map<String, String> properties, String... keys) {
    for (String key : keys) {
      if (properties.get(key) != null && !properties.get(key).isBlank()) {
        return properties.get(key);
      }
    }
    return null;
  }

  /** The folder holding every job's work location: WorkLocation's rule, with the job id cut off. */
  private String workRoot(Table table) {
    return WorkLocation.root(workBase, table.location(), tableName);
  }

  /** Files under the work root by job id (the first folder below the root). */
  private static Map<String, List<FileInfo>> jobDirectories(
      SupportsPrefixOperations io, String workRoot) {
    Map<String, List<FileInfo>> jobs = new LinkedHashMap<>();
    String root = FileLocations.normalized(workRoot) + "/";
    for (FileInfo file : listOrNone(io, FileLocations.child(workRoot, ""))) {
      String normalized = FileLocations.normalized(file.location());
      if (!normalized.startsWith(root)) {
        continue;
      }
      String relative = normalized.substring(root.length());
      int slash = relative.indexOf('/');
      if (slash <= 0) {
        continue; // a file directly in the root belongs to no job: kept
      }
      jobs.computeIfAbsent(relative.substring(0, slash), id -> new ArrayList<>()).add(file);
    }
    return jobs;
  }

  /**
   * The job's final status from its {@code result.json}; empty when there is none or it cannot be
   * read.
   */
  private static Optional<JobStatus> finalStatus(Table table, WorkLocation work) {
    try (InputStream in = table.io().newInputFile(work.jobResult()).newStream()) {
      JobResult result = JobJson.fromBytes(in.readAllBytes(), JobResult.class, work.jobResult());
      return Optional.ofNullable(result.status());
    } catch (NotFoundException e) {
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // unreadable: treated as unfinished, so its files are kept
    }
  }

  /** Output files named by the job's stored group results (normalized locations). */
  private static Set<String> outputsNamed(Table table, List<FileInfo> jobFiles) {
    Set<String> outputs = new HashSet<>();
    for (FileInfo file : jobFiles) {
      String name = file.location().substring(file.location().lastIndexOf('/') + 1);
      if (!name.startsWith("group-")
          || !name.endsWith(".json")
          || name.endsWith(".failed.json")
          || !file.location().contains("/results/")) {
        continue;
      }
      try (InputStream in = table.io().newInputFile(file.location()).newStream()) {
        JsonNode result = JobJson.mapper().readTree(in);
        for (JsonNode output : result.path("output_files")) {
          if (output.hasNonNull("file-path")) {
            outputs.add(FileLocations.normalized(output.get("file-path").asText()));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read group result " + file.location(), e);
      }
    }
    return outputs;
  }

  private static boolean isOld(FileInfo file, long cutoff) {
    return file.createdAtMillis() > 0 && file.createdAtMillis() < cutoff;
  }

  /** Deletes {@code files}; counts those storage no longer has. */
  private static RemovedFiles delete(Table table, List<FileInfo> files, List<String> problems) {
    List<String> gone = new ArrayList<>();
    long bytes = 0;
    for (FileInfo file : files) {
      table.io().deleteFile(file.location());
      if (ExpireSnapshotsStep.exists(table, file.location())) {
        problems.add("deleted " + file.location() + " but it still exists");
      } else {
        gone.add(file.location());
        bytes += file.size();
      }
    }
    return RemovedFiles.of(gone, bytes);
  }
}
