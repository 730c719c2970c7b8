package io.icecompact.worker.convert;

import java.util.List;
import org.apache.iceberg.DeleteFile;

/**
 * What converting one data file's equality deletes produced.
 *
 * @param dataFile the data file's location
 * @param positionDeletes the new position delete file (v2) or deletion vector (v3); null when no
 *     row of the file is deleted by its equality deletes (nothing to write)
 * @param replacedDeletes deletes of the data file merged into the new deletion vector (its previous
 *     DV, file-scoped position delete files): the commit must remove them, a data file has at most
 *     one DV; empty on v2, where the new file is added beside the existing ones
 * @param positions rows newly deleted: matched by an equality delete and not already deleted by
 *     position
 * @param bytesRead bytes of the data file read, as counted on its streams: its footer and the key
 *     columns' chunks
 * @param equalityDeletes the equality delete files applied to the data file
 */
public record ConvertedDeletes(
    String dataFile,
    DeleteFile positionDeletes,
    List<DeleteFile> replacedDeletes,
    long positions,
    long bytesRead,
    List<DeleteFile> equalityDeletes) {}
