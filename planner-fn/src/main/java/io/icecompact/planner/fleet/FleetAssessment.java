package io.icecompact.planner.fleet;

import java.util.List;

/**
 * What {@link FleetAssessor#assess(List, Deadline, String)} got done before its deadline: the
 * tables it assessed, ranked, and those it had no time for.
 *
 * @param ranked the tables assessed, ranked by {@link FleetAssessor#RANKING}
 * @param notAssessed the tables (and namespaces) left unassessed, counted and named up to a bound
 */
public record FleetAssessment(List<TableAssessment> ranked, NotAssessed notAssessed) {
  /**
   * At most this many table names are listed in {@link NotAssessed#tables} (the count is whole).
   */
  public static final int NAMES_LISTED_MAX = 20;

  public FleetAssessment {
    ranked = List.copyOf(ranked);
    notAssessed = notAssessed == null ? NotAssessed.NONE : notAssessed;
  }

  /**
   * What the assessment had no time for; the next sweep starts elsewhere in the list, so they are
   * not always the same tables.
   *
   * @param count tables listed but not assessed (tables of namespaces not listed are not counted:
   *     their number is unknown)
   * @param tables the first {@value FleetAssessment#NAMES_LISTED_MAX} of them
   * @param namespaces namespaces whose tables were not even listed
   * @param reason why (null when nothing was left out)
   */
  public record NotAssessed(
      int count, List<String> tables, List<String> namespaces, String reason) {
    public static final NotAssessed NONE = new NotAssessed(0, List.of(), List.of(), null);

    public NotAssessed {
      tables = List.copyOf(tables);
      namespaces = List.copyOf(namespaces);
    }

    public boolean any() {
      return count > 0 || !namespaces.isEmpty();
    }
  }
}
