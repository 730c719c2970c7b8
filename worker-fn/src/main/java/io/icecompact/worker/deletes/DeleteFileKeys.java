package io.icecompact.worker.deletes;

import io.icecompact.worker.columnar.LongKeyColumn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Consumer;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.parquet.Parquet;

/**
 * The keys of one equality delete file, streamed: a Parquet file is read with Iceberg's generic
 * reader projected on the key columns, each record handed on in Iceberg's internal values and then
 * dropped. Other formats go through Iceberg's delete loader, which collects the file's keys in a
 * set first.
 */
final class DeleteFileKeys {
  private DeleteFileKeys() {}

  /**
   * Adds each key of {@code delete}, a one-column integer key, to {@code index} at {@code
   * sequence}: read as primitive longs ({@link LongKeyColumn}) where the file stores the column as
   * Iceberg writes it, else through {@link #forEach}.
   */
  static void addLongs(
      DeleteFile delete,
      Schema keySchema,
      FileIO io,
      DeleteLoader loader,
      LongKeyDeletes index,
      long sequence) {
    if (delete.format() == FileFormat.PARQUET) {
      try {
        boolean read =
            LongKeyColumn.forEach(
                io.newInputFile(delete.location(), delete.fileSizeInBytes()),
                keySchema,
                new LongKeyColumn.Values() {
                  @Override
                  public void value(long value) {
                    index.add(value, sequence);
                  }

                  @Override
                  public void nullValue() {
                    index.addNull(sequence);
                  }
                });
        if (read) {
          return;
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read equality delete file " + delete.location(), e);
      }
    }
    forEach(delete, keySchema, io, loader, key -> index.add(key, sequence));
  }

  /**
   * Hands each key of {@code delete} to {@code keys}: values are fresh, the struct around them is
   * reused, so a consumer that keeps a key copies the struct.
   */
  static void forEach(
      DeleteFile delete,
      Schema keySchema,
      FileIO io,
      DeleteLoader loader,
      Consumer<StructLike> keys) {
    if (delete.format() != FileFormat.PARQUET) {
      loader.loadEqualityDeletes(List.of(delete), keySchema).forEach(keys);
      return;
    }
    InternalRecordWrapper internal = new InternalRecordWrapper(keySchema.asStruct());
    try (CloseableIterable<Record> records =
        Parquet.read(io.newInputFile(delete.location(), delete.fileSizeInBytes()))
            .project(keySchema)
            .createReaderFunc(
                fileSchema -> GenericParquetReaders.buildReader(keySchema, fileSchema))
            .build()) {
      for (Record record : records) {
        keys.accept(internal.wrap(record));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read equality delete file " + delete.location(), e);
    }
  }
}
