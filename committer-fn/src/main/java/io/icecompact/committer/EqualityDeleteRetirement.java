package io.icecompact.committer;

import io.icecompact.core.job.ConvertedGroup;
import io.icecompact.core.job.EqualityDeleteScope;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which equality delete files a convert commit removes: exactly those for which the groups being
 * committed converted every data file the delete applied to at the pinned snapshot ({@link
 * EqualityDeleteScope}, counted over the whole table). A delete that still applies to a data file
 * outside them (outside the job's filter, in a group left for the next run, failed or conflicted)
 * stays, and so its rows stay deleted by it. A data file's new position deletes are committed only
 * when at least one of its equality deletes is retired: otherwise they would duplicate what the
 * kept deletes already do.
 */
record EqualityDeleteRetirement(Set<String> retired, Set<String> kept) {
  /** Before any group is decided: nothing retired, nothing kept. */
  static final EqualityDeleteRetirement NONE = new EqualityDeleteRetirement(Set.of(), Set.of());

  static EqualityDeleteRetirement of(EqualityDeleteScope scope, Collection<ConvertedGroup> groups) {
    Map<String, Integer> converted = new HashMap<>();
    for (ConvertedGroup group : groups) {
      for (ConvertedGroup.File file : group.files()) {
        file.equalityDeletes().forEach(delete -> converted.merge(delete, 1, Integer::sum));
      }
    }
    Set<String> retired = new TreeSet<>();
    Set<String> kept = new TreeSet<>();
    converted.forEach(
        (delete, files) -> {
          Integer applies = scope.dataFilesPerDelete().get(delete);
          if (applies != null && files.intValue() == applies.intValue()) {
            retired.add(delete);
          } else {
            kept.add(delete);
          }
        });
    return new EqualityDeleteRetirement(Set.copyOf(retired), Set.copyOf(kept));
  }

  /** Whether {@code file}'s new position deletes go into the commit. */
  boolean commits(ConvertedGroup.File file) {
    return file.positionDeletes() != null && anyRetired(file.equalityDeletes());
  }

  /** Whether every equality delete of {@code file} is retired: the file reads by position only. */
  boolean fullyConverted(ConvertedGroup.File file) {
    return retired.containsAll(file.equalityDeletes());
  }

  private boolean anyRetired(List<String> deletes) {
    return deletes.stream().anyMatch(retired::contains);
  }
}
