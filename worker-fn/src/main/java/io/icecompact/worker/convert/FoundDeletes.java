package io.icecompact.worker.convert;

import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.deletes.PositionDeleteIndex;

/**
 * The rows of one data file its equality deletes delete, found and not yet written: the first half
 * of a conversion ({@link EqualityDeleteConverter#find}), kept until the group's deletes are
 * written (one Puffin file a group on v3).
 *
 * @param positions rows newly deleted, ascending: matched by an equality delete and not already
 *     deleted by position
 * @param existing the data file's position deletes at the pinned snapshot; null when it has no
 *     equality delete to convert
 * @param appliedPositionDeletes the position delete files (and DV) that apply to the data file at
 *     the pinned snapshot (not the ones the conversion writes)
 * @param bytesRead bytes of the data file read, as counted on its streams
 * @param equalityDeletes the equality delete files applied to the data file
 */
public record FoundDeletes(
    DataFile dataFile,
    long[] positions,
    PositionDeleteIndex existing,
    List<DeleteFile> appliedPositionDeletes,
    long bytesRead,
    List<DeleteFile> equalityDeletes) {

  ConvertedDeletes converted(DeleteFile written, List<DeleteFile> replaced) {
    return new ConvertedDeletes(
        dataFile.location(),
        written,
        written == null ? List.of() : List.copyOf(replaced),
        positions.length,
        bytesRead,
        equalityDeletes);
  }
}
