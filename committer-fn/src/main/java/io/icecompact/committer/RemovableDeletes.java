package io.icecompact.committer;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Delete files that apply only to files a commit replaces: deletion vectors and file-scoped
 * position deletes. Partition-scoped and equality deletes may still apply to other files: kept
 * (Iceberg drops them itself once they are dangling, see {@link DanglingDeletes}).
 */
final class RemovableDeletes {
  private RemovableDeletes() {}

  /**
   * By {@link CommitVerifier#key}: deletion vectors of several data files can share one Puffin
   * file.
   */
  static Map<String, DeleteFile> of(List<ReadyGroup> groups) {
    Map<String, DeleteFile> removable = new LinkedHashMap<>();
    for (ReadyGroup group : groups) {
      for (FileScanTask task : group.tasks()) {
        for (DeleteFile delete : task.deletes()) {
          if (delete.content() == FileContent.POSITION_DELETES
              && ContentFileUtil.isFileScoped(delete)) {
            removable.putIfAbsent(CommitVerifier.key(delete), delete);
          }
        }
      }
    }
    return removable;
  }
}
