package io.icecompact.planner.fleet;

import io.icecompact.core.policy.CareStep;
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
 * What one sweep does, from the ranked assessments of its namespaces: the counts per decision and the
 * tables to compact, each with the compaction state machine's execution input and execution name. Its
 * size is bounded by {@code max_tables}, never by the number of tables assessed, since it travels
 * through Step Functions (256 KiB per payload).
 *
 * @param tablesAssessed every table of the namespaces
 * @param decisions how many tables got each decision (every decision listed, zero included)
 * @param compactCount the tables compacted by this sweep: {@code to_compact}'s size, at most
 *     {@code max_tables} (fewer than {@code decisions.COMPACT} when more tables need it)
 * @param maxConcurrentTables compactions running at once
 * @param toCompact the tables to compact, highest score first
 */
public record SweepPlan(
    int tablesAssessed,
    Map<Decision, Integer> decisions,
    int compactCount,
    int maxConcurrentTables,
    List<TableToCompact> toCompact) {

  /** Step Functions' longest execution name. */
  public static final int EXECUTION_NAME_MAX = 80;
  private static final int TABLE_PART_MAX = 40;
  private static final int SWEEP_PART_MAX = 30;
  private static final int HASH_CHARS = 8;

  /**
   * One table to compact.
   *
   * @param table the table's identifier
   * @param score its health score (the rank it was chosen by)
   * @param executionName the compaction's execution name: unique per table and sweep
   * @param input the compaction's execution input ({@code execution-input.schema.json})
   */
  public record TableToCompact(String table, double score, String executionName, CompactionInput input) {}

  /**
   * The compaction state machine's execution input for one table: the sweep's catalog, the table's
   * policy (its rewrite options, partition filter and care steps), and what the sweep passes on.
   */
  public record CompactionInput(
      String table,
      Map<String, String> catalogProperties,
      Map<String, String> options,
      String where,
      String workLocation,
      Integer maxConcurrency,
      List<CareStep> care) {}

  /**
   * The plan of the sweep {@code sweepExecutionName} over {@code ranked} (as {@link FleetAssessor#assess}
   * ranks them: decisions to compact first, highest score first). A table listed twice (a namespace
   * given twice) is counted and compacted once.
   */
  public static SweepPlan of(List<TableAssessment> ranked, SweepInput input, String sweepExecutionName) {
    Map<Decision, Integer> decisions = new EnumMap<>(Decision.class);
    for (Decision decision : Decision.values()) {
      decisions.put(decision, 0);
    }
    List<TableToCompact> toCompact = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (TableAssessment assessment : ranked) {
      if (!seen.add(assessment.table())) {
        continue;
      }
      decisions.merge(assessment.decision(), 1, Integer::sum);
      if (assessment.decision() == Decision.COMPACT && toCompact.size() < input.maxTables()) {
        toCompact.add(new TableToCompact(assessment.table(), assessment.score(),
            executionName(assessment.table(), sweepExecutionName), compactionInput(assessment, input)));
      }
    }
    return new SweepPlan(seen.size(), decisions, toCompact.size(), input.maxConcurrentTables(), List.copyOf(toCompact));
  }

  private static CompactionInput compactionInput(TableAssessment assessment, SweepInput input) {
    return new CompactionInput(assessment.table(), input.catalogProperties(), assessment.policy().options(),
        assessment.policy().where(), input.workLocation(), input.maxConcurrency(), assessment.policy().steps());
  }

  /**
   * {@code <table>-<sweep>-<hash>}: the table and the sweep's execution name, each cut and with any
   * character Step Functions refuses (or that is not plain ASCII, which its logs need) replaced by
   * {@code _}, then 8 hex characters of the SHA-256 of both whole names, so that two tables whose names
   * share the first 40 characters, or differ only in a replaced character, still get different names.
   * At most {@value #EXECUTION_NAME_MAX} characters.
   */
  public static String executionName(String table, String sweepExecutionName) {
    String hash = HexFormat.of().formatHex(sha256(table + "\n" + sweepExecutionName)).substring(0, HASH_CHARS);
    return cut(safe(table), TABLE_PART_MAX) + "-" + cut(safe(sweepExecutionName), SWEEP_PART_MAX) + "-" + hash;
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
