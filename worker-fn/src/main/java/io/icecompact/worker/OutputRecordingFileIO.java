package io.icecompact.worker;

import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.WorkLocation;
import java.util.Map;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * The FileIO a worker writes its output files through: each file's location is recorded in the
 * job's work location ({@link JobStore#recordOutput}) before the file is created. A worker killed
 * mid-group (Lambda's 15-minute timeout, a crash) never reports its outputs; the committer finds
 * them by these entries and deletes them, where before they stayed as orphans until {@code
 * remove_orphan_files}.
 */
final class OutputRecordingFileIO implements FileIO {
  private final FileIO delegate;
  private final JobStore store;
  private final WorkLocation work;
  private final int groupIndex;
  private final int attempt;

  OutputRecordingFileIO(
      FileIO delegate, JobStore store, WorkLocation work, int groupIndex, int attempt) {
    this.delegate = delegate;
    this.store = store;
    this.work = work;
    this.groupIndex = groupIndex;
    this.attempt = attempt;
  }

  @Override
  public OutputFile newOutputFile(String location) {
    store.recordOutput(work, groupIndex, attempt, location);
    return delegate.newOutputFile(location);
  }

  @Override
  public InputFile newInputFile(String location) {
    return delegate.newInputFile(location);
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    return delegate.newInputFile(location, length);
  }

  @Override
  public void deleteFile(String location) {
    delegate.deleteFile(location);
  }

  @Override
  public Map<String, String> properties() {
    return delegate.properties();
  }

  /** The table's FileIO is not this view's to close. */
  @Override
  public void close() {}
}
