package io.icecompact.committer;

import java.util.HashSet;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;

/**
 * A re-run of a conversion's committer after an earlier run committed the job's snapshot and
 * stopped before storing its result (a crash, a lost answer, a Lambda timeout): the snapshot is the
 * job's outcome, and is read, not recomputed. The equality deletes it retired are those it removed;
 * the rest of the ready groups' deletes were kept. Recomputing from the groups instead would count
 * groups the earlier run left out (refused by concurrent commits) as converted.
 */
final class EarlierConversion {
  private EarlierConversion() {}

  static void recover(ConversionRun run, Snapshot committed) {
    // the groups that run left out because concurrent commits changed their files, up to the
    // snapshot it committed on: left out again, for the same reason
    try {
      new ConversionConflicts(
              run.table.io(), run.plan.pinned().snapshotId(), run.convertedDataFiles())
          .check(committed.parentId(), run.table::snapshot);
    } catch (ConversionConflicts.Refused e) {
      run.conflicted(e.dataFiles());
    }
    Set<String> removed = new HashSet<>();
    for (DeleteFile delete :
        SnapshotChanges.builderFor(run.table).snapshot(committed).build().removedDeleteFiles()) {
      if (delete.content() == FileContent.EQUALITY_DELETES) {
        removed.add(delete.location());
      }
    }
    Set<String> kept = new HashSet<>();
    run.ready.values().stream()
        .flatMap(group -> group.result().files().stream())
        .flatMap(file -> file.equalityDeletes().stream())
        .filter(location -> !removed.contains(location))
        .forEach(kept::add);
    run.retirement = new EqualityDeleteRetirement(Set.copyOf(removed), Set.copyOf(kept));
    run.committed = committed;
  }
}
