package io.icecompact.engine;

import io.icecompact.fixtures.FragmentedTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

/**
 * An unpartitioned table with one column of every flat type the columnar path copies, nulls
 * interleaved with values, NaN and signed zeros in the floating-point columns, a low-cardinality
 * string (dictionary encoded) and a high-cardinality one (its dictionary overflows: plain pages).
 */
final class TypedTable {
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "i", Types.IntegerType.get()),
          Types.NestedField.optional(3, "f", Types.FloatType.get()),
          Types.NestedField.optional(4, "d", Types.DoubleType.get()),
          Types.NestedField.optional(5, "flag", Types.BooleanType.get()),
          Types.NestedField.optional(6, "category", Types.StringType.get()),
          Types.NestedField.optional(7, "note", Types.StringType.get()),
          Types.NestedField.optional(8, "amount", Types.DecimalType.of(20, 4)),
          Types.NestedField.optional(9, "day", Types.DateType.get()),
          Types.NestedField.optional(10, "payload", Types.BinaryType.get()),
          Types.NestedField.optional(11, "token", Types.UUIDType.get()));

  private TypedTable() {}

  static Table create(
      Catalog catalog, TableIdentifier id, int formatVersion, int files, int rowsPerFile) {
    if (catalog instanceof SupportsNamespaces namespaces
        && !namespaces.namespaceExists(id.namespace())) {
      namespaces.createNamespace(Namespace.of(id.namespace().levels()));
    }
    Map<String, String> properties = new HashMap<>();
    properties.put(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion));
    properties.put(TableProperties.PARQUET_COMPRESSION, "zstd");
    // small dictionaries and pages: "note" falls back to plain pages, every column has several
    // pages
    properties.put(TableProperties.PARQUET_DICT_SIZE_BYTES, "4096");
    properties.put(TableProperties.PARQUET_PAGE_ROW_LIMIT, "300");
    Table table = catalog.createTable(id, SCHEMA, PartitionSpec.unpartitioned(), properties);
    Random random = new Random(7);
    long next = 0;
    for (int f = 0; f < files; f++) {
      List<Record> rows = new ArrayList<>();
      for (int r = 0; r < rowsPerFile; r++) {
        rows.add(row(next++, random));
      }
      table.newAppend().appendFile(FragmentedTable.dataFile(table, rows)).commit();
    }
    return table;
  }

  static Record row(long n, Random random) {
    GenericRecord row = GenericRecord.create(SCHEMA);
    row.setField("id", n);
    row.setField("i", n % 7 == 0 ? null : (int) (n * 3 - 500));
    row.setField(
        "f",
        n % 5 == 0
            ? null
            : n % 11 == 0 ? Float.NaN : n % 13 == 0 ? -0.0f : n % 17 == 0 ? 0.0f : n * 0.5f - 100);
    row.setField(
        "d", n % 4 == 0 ? null : n % 9 == 0 ? Double.NaN : n % 19 == 0 ? -0.0 : n * 1.25 - 3000);
    row.setField("flag", n % 3 == 0 ? null : n % 2 == 0);
    row.setField("category", n % 2 == 0 ? null : "c" + (n % 8));
    row.setField(
        "note", n % 6 == 0 ? null : "note " + n + " " + Long.toHexString(random.nextLong()));
    row.setField("amount", n % 10 == 0 ? null : BigDecimal.valueOf(n * 12345L - 99999, 4));
    row.setField("day", n % 8 == 0 ? null : LocalDate.of(2026, 1, 1).plusDays(n % 400));
    row.setField(
        "payload", n % 5 == 1 ? null : ByteBuffer.wrap(new byte[] {(byte) n, (byte) (n >> 8), 7}));
    row.setField("token", n % 9 == 2 ? null : new UUID(n, n * 31));
    return row;
  }

  /**
   * Deletes every {@code step}-th position of {@code target}: deleted values and nulls interleave.
   */
  static void deleteEvery(Table table, DataFile target, int step) {
    long[] positions =
        LongStream.iterate(1, p -> p < target.recordCount(), p -> p + step).toArray();
    table
        .newRowDelta()
        .addDeletes(FragmentedTable.positionDelete(table, target, positions))
        .commit();
  }

  /** Equality deletes on {@code column} for {@code values}. */
  static void deleteWhere(Table table, String column, Object... values) {
    Schema keySchema = table.schema().select(column);
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .deleteFileFormat(FileFormat.PARQUET)
            .equalityFieldIds(new int[] {table.schema().findField(column).fieldId()})
            .equalityDeleteRowSchema(keySchema)
            .build();
    EncryptedOutputFile out =
        OutputFileFactory.builderFor(table, 9, System.nanoTime() % 10000)
            .format(FileFormat.PARQUET)
            .build()
            .newOutputFile();
    EqualityDeleteWriter<Record> writer = writers.newEqualityDeleteWriter(out, table.spec(), null);
    try (writer) {
      for (Object value : values) {
        GenericRecord key = GenericRecord.create(keySchema);
        key.setField(column, value);
        writer.write(key);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    RowDelta delta = table.newRowDelta();
    delta.addDeletes(writer.toDeleteFile()).commit();
  }
}
