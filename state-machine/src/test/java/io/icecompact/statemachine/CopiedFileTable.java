package io.icecompact.statemachine;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

/**
 * An unpartitioned table of many tiny data files for the scale tests: one small Parquet file
 * written by Iceberg's generic writer, then byte copies of it at distinct paths, all added in one
 * fast append (the copies are identical files, so each carries the template's metrics). Writing
 * thousands of real files would take minutes on this machine; what the tests measure (payloads,
 * group counts) only needs many files that a worker can read.
 */
final class CopiedFileTable {
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "note", Types.StringType.get()));
  static final int ROWS_PER_FILE = 3;

  private CopiedFileTable() {}

  /**
   * The table with {@code files} copies of one file; returns it with its template's size in bytes.
   */
  static Created create(Catalog catalog, TableIdentifier identifier, int files) {
    if (catalog instanceof SupportsNamespaces namespaces
        && !namespaces.namespaceExists(identifier.namespace())) {
      namespaces.createNamespace(identifier.namespace());
    }
    Table table =
        catalog.createTable(
            identifier,
            SCHEMA,
            PartitionSpec.unpartitioned(),
            java.util.Map.of(TableProperties.FORMAT_VERSION, "2"));
    DataFile template = writeTemplate(table);
    byte[] bytes = read(table.io(), template.location());
    List<DataFile> copies = copy(table, template, bytes, files);
    AppendFiles append = table.newFastAppend();
    copies.forEach(append::appendFile);
    append.commit();
    table.io().deleteFile(template.location());
    return new Created(table, template.fileSizeInBytes());
  }

  record Created(Table table, long fileBytes) {}

  private static DataFile writeTemplate(Table table) {
    OutputFileFactory outputs =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
    DataWriter<Record> writer =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .build()
            .newDataWriter(outputs.newOutputFile(), table.spec(), null);
    try (writer) {
      for (long id = 0; id < ROWS_PER_FILE; id++) {
        GenericRecord row = GenericRecord.create(SCHEMA);
        row.setField("id", id);
        row.setField("note", "row " + id);
        writer.write(row);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  private static byte[] read(FileIO io, String location) {
    try (InputStream in = io.newInputFile(location).newStream()) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes the copies from 8 threads (each PUT is a signed request to local S3). */
  private static List<DataFile> copy(Table table, DataFile template, byte[] bytes, int files) {
    String folder = table.location() + "/data/";
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<DataFile>> written = new ArrayList<>();
      for (int i = 0; i < files; i++) {
        String path = String.format("%scopy-%06d.parquet", folder, i);
        written.add(
            pool.submit(
                () -> {
                  try (OutputStream out = table.io().newOutputFile(path).createOrOverwrite()) {
                    out.write(bytes);
                  }
                  return DataFiles.builder(table.spec()).copy(template).withPath(path).build();
                }));
      }
      List<DataFile> copies = new ArrayList<>(files);
      for (Future<DataFile> file : written) {
        copies.add(file.get());
      }
      return copies;
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot write a copy", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      pool.shutdownNow();
    }
  }
}
