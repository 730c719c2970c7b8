package io.icecompact.planner.fleet;

import io.icecompact.core.job.JobAction;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.options.ConvertOptions;
import io.icecompact.core.policy.CareStep;
import io.icecompact.core.text.Abbreviated;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one sweep does, from the ranked assessments of its namespaces: the counts per decision and
 * the tables to compact, each with its execution name and the per-table part of the compaction
 * state machine's execution input. It travels through Step Functions (256 KiB per payload), so its
 * size is bounded twice: by {@code max_tables} entries, never by the number of tables assessed, and
 * by {@value #PLAN_BYTES_MAX} bytes of JSON. What every compaction shares (the catalog properties,
 * above all, which can be kilobytes) is in {@code shared_input} once; the sweep's Map merges it
 * into each entry's {@code input} ({@code States.JsonMerge} in its ItemSelector), so that 100
 * entries do not carry 100 copies.
 *
 * @param tablesAssessed the tables assessed (every table of the namespaces, unless the deadline
 *     came first)
 * @param decisions how many tables got each decision (every decision listed, zero included)
 * @param compactCount the jobs this sweep starts (compactions and conversions of equality deletes):
 *     {@code to_compact}'s size, at most {@code max_tables} (fewer than {@code decisions.COMPACT}
 *     plus {@code decisions.CONVERT_EQUALITY_DELETES} when more tables need one)
 * @param maxConcurrentTables compactions running at once
 * @param sharedInput the part of every compaction's execution input that is the sweep's
 * @param toCompact the tables to compact, highest score first
 * @param notAssessed the tables the assessment had no time for (count 0 when none)
 * @param notPlanned tables decided COMPACT and within {@code max_tables} but left out because their
 *     entries would have put the plan over {@value #PLAN_BYTES_MAX} bytes (count 0 when none)
 */
public record SweepPlan(
    int tablesAssessed,
    Map<Decision, Integer> decisions,
    int compactCount,
    int maxConcurrentTables,
    SharedInput sharedInput,
    List<TableToCompact> toCompact,
    FleetAssessment.NotAssessed notAssessed,
    NotPlanned notPlanned) {

  /** Step Functions' longest execution name. */
  public static final int EXECUTION_NAME_MAX = 80;

  /**
   * The plan's largest JSON size: half of Step Functions' 256 KiB, since the plan is AssessTables'
   * result and the sweep's state from then on, and a payload over 256 KiB fails the execution with
   * {@code States.DataLimitExceeded}, which no Catch takes.
   */
  public static final int PLAN_BYTES_MAX = 128 * 1024;

  /** Room kept for {@code not_planned}'s names, which are added after the entries are chosen. */
  private static final int NOT_PLANNED_BYTES_RESERVED = 8 * 1024;

  private static final int TABLE_PART_MAX = 40;
  private static final int SWEEP_PART_MAX = 30;
  private static final int HASH_CHARS = 8;

  /**
   * One table to compact.
   *
   * @param table the table's identifier
   * @param score its health score (the rank it was chosen by)
   * @param executionName the compaction's execution name: unique per table and sweep
   * @param input the per-table part of the compaction's execution input ({@code
   *     execution-input.schema.json}), to be merged with {@link SweepPlan#sharedInput}
   */
  public record TableToCompact(
      String table, double score, String executionName, CompactionInput input) {}

  /**
   * The per-table part of the compaction state machine's execution input: the table's policy, and
   * the job's {@code action} when it is not the default rewrite (null, left out of the JSON).
   */
  public record CompactionInput(
      String table,
      Map<String, String> options,
      String where,
      List<CareStep> care,
      JobAction action) {

    /** A rewrite's input (the default action). */
    public CompactionInput(
        String table, Map<String, String> options, String where, List<CareStep> care) {
      this(table, options, where, care, null);
    }
  }

  /**
   * The part of every compaction's execution input the sweep gives: its catalog and what it passes
   * on (absent fields are left out of the JSON, so the merged input has no nulls).
   */
  public record SharedInput(
      Map<String, String> catalogProperties, String workLocation, Integer maxConcurrency) {}

  /**
   * Tables left out of the plan for its size.
   *
   * @param count how many
   * @param tables the first {@value FleetAssessment#NAMES_LISTED_MAX} of them
   * @param reason why (null when none)
   */
  public record NotPlanned(int count, List<String> tables, String reason) {
    public static final NotPlanned NONE = new NotPlanned(0, List.of(), null);
  }

  /** The plan of a whole assessment, nothing left unassessed. */
  public static SweepPlan of(
      List<TableAssessment> ranked, SweepInput input, String sweepExecutionName) {
    return of(new FleetAssessment(ranked, null), input, sweepExecutionName);
  }

  /**
   * The plan of the sweep {@code sweepExecutionName} over {@code assessment} (as {@link
   * FleetAssessor#assess} ranks it: decisions to compact first, highest score first). A table
   * listed twice (a namespace given twice) is counted and compacted once. Entries are added while
   * the plan stays under {@value #PLAN_BYTES_MAX} bytes; one that does not fit is left out (and
   * named in {@code not_planned}), and smaller ones after it are still added.
   */
  public static SweepPlan of(
      FleetAssessment assessment, SweepInput input, String sweepExecutionName) {
    Map<Decision, Integer> decisions = new EnumMap<>(Decision.class);
    for (Decision decision : Decision.values()) {
      decisions.put(decision, 0);
    }
    SharedInput shared =
        new SharedInput(input.catalogProperties(), input.workLocation(), input.maxConcurrency());
    long bytes =
        JobJson.toBytes(
                    new SweepPlan(
                        0,
                        decisions,
                        0,
                        input.maxConcurrentTables(),
                        shared,
                        List.of(),
                        assessment.notAssessed(),
                        NotPlanned.NONE))
                .length
            + NOT_PLANNED_BYTES_RESERVED;
    List<TableToCompact> toCompact = new ArrayList<>();
    List<String> leftOut = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (TableAssessment table : assessment.ranked()) {
      if (!seen.add(table.table())) {
        continue;
      }
      decisions.merge(table.decision(), 1, Integer::sum);
      if (!table.decision().startsJob() || toCompact.size() >= input.maxTables()) {
        continue;
      }
      TableToCompact entry =
          new TableToCompact(
              table.table(),
              table.score(),
              executionName(table.table(), sweepExecutionName),
              compactionInput(table));
      long entryBytes = JobJson.toBytes(entry).length + 1; // and a comma
      if (bytes + entryBytes > PLAN_BYTES_MAX) {
        leftOut.add(table.table());
        continue;
      }
      bytes += entryBytes;
      toCompact.add(entry);
    }
    NotPlanned notPlanned =
        leftOut.isEmpty()
            ? NotPlanned.NONE
            : new NotPlanned(
                leftOut.size(),
                leftOut
                    .subList(0, Math.min(leftOut.size(), FleetAssessment.NAMES_LISTED_MAX))
                    .stream()
                    .map(name -> Abbreviated.text(name, 300))
                    .toList(),
                String.format(
                    "their compaction inputs (the table's options and where) would have put the sweep's plan"
                        + " over %d bytes; they stay for the next sweep",
                    PLAN_BYTES_MAX));
    return new SweepPlan(
        seen.size(),
        decisions,
        toCompact.size(),
        input.maxConcurrentTables(),
        shared,
        List.copyOf(toCompact),
        assessment.notAssessed(),
        notPlanned);
  }

  private static CompactionInput compactionInput(TableAssessment assessment) {
    boolean converts = assessment.decision() == Decision.CONVERT_EQUALITY_DELETES;
    return new CompactionInput(
        assessment.table(),
        // a conversion takes only the grouping and commit options of the table's policy
        converts
            ? ConvertOptions.applicable(assessment.policy().options())
            : assessment.policy().options(),
        assessment.policy().where(),
        assessment.policy().steps(),
        converts ? JobAction.CONVERT_EQUALITY_DELETES : null);
  }

  /**
   * {@code <table>-<sweep>-<hash>}: the table and the sweep's execution name, each cut and with any
   * character Step Functions refuses (or that is not plain ASCII, which its logs need) replaced by
   * {@code _}, then 8 hex characters of the SHA-256 of both whole names, so that two tables whose
   * names share the first 40 characters, or differ only in a replaced character, still get
   * different names. At most {@value #EXECUTION_NAME_MAX} characters.
   */
  public static String executionName(String table, String sweepExecutionName) {
    String hash =
        HexFormat.of()
            .formatHex(sha256(table + "\n" + sweepExecutionName))
            .substring(0, HASH_CHARS);
    return cut(safe(table), TABLE_PART_MAX)
        + "-"
        + cut(safe(sweepExecutionName), SWEEP_PART_MAX)
        + "-"
        + hash;
  }

  private static String safe(String name) {
    return name.replaceAll("[^A-Za-z0-9._-]", "_");
  }

  private static String cut(String name, int max) {
    return name.length() <= max ? name : name.substring(0, max);
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
