package io.icecompact.committer;

import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.PlannedGroup;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;

/** A group whose result passed every check: what it replaces and what it adds. */
record ReadyGroup(
    PlannedGroup planned, List<FileScanTask> tasks, GroupResult result, List<DataFile> outputs) {
  int index() {
    return planned.index();
  }
}
