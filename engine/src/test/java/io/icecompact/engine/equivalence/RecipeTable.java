package io.icecompact.engine.equivalence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.DVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Builds the table a {@link TableRecipe} describes, the way writers leave tables behind: one commit
 * a file, then position deletes (or deletion vectors), then equality deletes and a file that
 * re-inserts some of the deleted ids (its rows must survive: they are newer than the deletes).
 */
final class RecipeTable {
  private final TableRecipe recipe;
  private final Random random;
  private final Schema schema;
  private final Map<Integer, List<Long>> idsByPart = new TreeMap<>();
  private final List<Object[]> palettes = new ArrayList<>();
  private long nextId;
  private int nextTask;

  private RecipeTable(TableRecipe recipe) {
    this.recipe = recipe;
    this.random = new Random(recipe.seed());
    this.schema = schema(recipe.presentColumns());
    for (int c = 0; c < recipe.presentColumns().size(); c++) {
      Type type = schema.columns().get(c + 2).type();
      Random paletteRandom = new Random(recipe.seed() * 31 + c);
      Object[] palette = new Object[4];
      for (int k = 0; k < palette.length; k++) {
        palette[k] = ColumnValues.value(type, false, 0, paletteRandom);
      }
      palettes.add(palette);
    }
  }

  /** Creates the table; {@code compactOnce} compacts it (called when the recipe asks for it). */
  static Table create(
      Catalog catalog, TableIdentifier id, TableRecipe recipe, Runnable compactOnce) {
    return new RecipeTable(recipe).build(catalog, id, compactOnce);
  }

  static Schema schema(List<ColumnRecipe> columns) {
    AtomicInteger ids = new AtomicInteger(2);
    List<Types.NestedField> fields = new ArrayList<>();
    fields.add(Types.NestedField.required(1, "id", Types.LongType.get()));
    fields.add(Types.NestedField.required(2, "part", Types.IntegerType.get()));
    for (int i = 0; i < columns.size(); i++) {
      ColumnRecipe column = columns.get(i);
      int fieldId = ids.incrementAndGet();
      Type type = type(column.kind(), ids);
      String name = "c" + i + "_" + column.kind().name().toLowerCase(java.util.Locale.ROOT);
      fields.add(
          column.optional()
              ? Types.NestedField.optional(fieldId, name, type)
              : Types.NestedField.required(fieldId, name, type));
    }
    return new Schema(fields);
  }

  private static Type type(ColumnKind kind, AtomicInteger ids) {
    return switch (kind) {
      case INT -> Types.IntegerType.get();
      case LONG -> Types.LongType.get();
      case FLOAT -> Types.FloatType.get();
      case DOUBLE -> Types.DoubleType.get();
      case DECIMAL -> Types.DecimalType.of(14, 3);
      case STRING -> Types.StringType.get();
      case BINARY -> Types.BinaryType.get();
      case DATE -> Types.DateType.get();
      case TIMESTAMP -> Types.TimestampType.withZone();
      case BOOLEAN -> Types.BooleanType.get();
      case STRUCT ->
          Types.StructType.of(
              Types.NestedField.optional(ids.incrementAndGet(), "x", Types.DoubleType.get()),
              Types.NestedField.optional(ids.incrementAndGet(), "y", Types.StringType.get()));
      case LIST -> Types.ListType.ofOptional(ids.incrementAndGet(), Types.StringType.get());
      case MAP ->
          Types.MapType.ofOptional(
              ids.incrementAndGet(),
              ids.incrementAndGet(),
              Types.StringType.get(),
              Types.IntegerType.get());
    };
  }

  private Table build(Catalog catalog, TableIdentifier id, Runnable compactOnce) {
    PartitionSpec spec =
        recipe.partitioned()
            ? PartitionSpec.builderFor(schema).identity("part").build()
            : PartitionSpec.unpartitioned();
    Map<String, String> properties = new HashMap<>();
    properties.put(TableProperties.FORMAT_VERSION, Integer.toString(recipe.formatVersion()));
    if (recipe.smallPages()) {
      properties.put(TableProperties.PARQUET_PAGE_SIZE_BYTES, "512");
      properties.put(TableProperties.PARQUET_PAGE_ROW_LIMIT, "16");
      properties.put(TableProperties.PARQUET_DICT_SIZE_BYTES, "256");
      properties.put(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "2048");
    }
    Table table = catalog.createTable(id, schema, spec, properties);

    int firstRound = (recipe.files() + 1) / 2;
    for (int file = 0; file < firstRound; file++) {
      append(table, file);
    }
    if (recipe.compactFirst() && recipe.formatVersion() >= 3) {
      compactOnce.run();
      table.refresh();
    }
    for (int file = firstRound; file < recipe.files(); file++) {
      append(table, file);
    }
    if (recipe.positionDeletes()) {
      deletePositions(table);
    }
    if (recipe.equalityDeletes()) {
      deleteIdsAndReinsertSome(table);
    }
    table.refresh();
    return table;
  }

  private void append(Table table, int file) {
    int part = recipe.partitioned() ? file % 2 : 0;
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < recipe.rowsPerFile(); i++) {
      rows.add(row(nextId++, part));
    }
    table.newAppend().appendFile(write(table, rows)).commit();
  }

  private Record row(long id, int part) {
    GenericRecord row = GenericRecord.create(schema);
    row.setField("id", id);
    row.setField("part", part);
    List<ColumnRecipe> columns = recipe.presentColumns();
    for (int c = 0; c < columns.size(); c++) {
      ColumnRecipe column = columns.get(c);
      Types.NestedField field = schema.columns().get(c + 2);
      Object value;
      if (column.optional() && random.nextInt(100) < column.nullPercent()) {
        value = null;
      } else if (column.lowCardinality()) {
        value = palettes.get(c)[random.nextInt(4)];
      } else {
        value = ColumnValues.value(field.type(), false, 0, random);
      }
      row.set(c + 2, value);
    }
    idsByPart.computeIfAbsent(part, p -> new ArrayList<>()).add(id);
    return row;
  }

  private DataFile write(Table table, List<Record> rows) {
    PartitionKey partition = partition(table, rows.get(0));
    DataWriter<Record> writer =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .build()
            .newDataWriter(
                outputs(table).newOutputFile(table.spec(), partition), table.spec(), partition);
    try (writer) {
      rows.forEach(writer::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  private OutputFileFactory outputs(Table table) {
    return OutputFileFactory.builderFor(table, 1, nextTask++).format(FileFormat.PARQUET).build();
  }

  private static PartitionKey partition(Table table, Record row) {
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(row));
    return key;
  }

  /** Deletes random rows of about half the live files; each file keeps at least one row. */
  private void deletePositions(Table table) {
    Map<String, List<DataFile>> targetsByPartition = new TreeMap<>();
    for (DataFile file : liveFiles(table)) {
      if (file.recordCount() > 1 && random.nextBoolean()) {
        targetsByPartition
            .computeIfAbsent(table.spec().partitionToPath(file.partition()), p -> new ArrayList<>())
            .add(file);
      }
    }
    if (targetsByPartition.isEmpty()) {
      return;
    }
    RowDelta delta = table.newRowDelta();
    if (recipe.formatVersion() >= 3) {
      // one writer for all targets: their vectors share one Puffin file
      DVFileWriter dvs = new BaseDVFileWriter(outputs(table), path -> null);
      try (dvs) {
        for (List<DataFile> targets : targetsByPartition.values()) {
          for (DataFile target : targets) {
            for (long pos : positions(target)) {
              dvs.delete(
                  target.location(), pos, table.specs().get(target.specId()), target.partition());
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      dvs.result().deleteFiles().forEach(delta::addDeletes);
    } else {
      // one file per partition, naming several data files: a group may hold only some of them
      for (List<DataFile> targets : targetsByPartition.values()) {
        targets.sort(Comparator.comparing(DataFile::location));
        StructLike partition = targets.get(0).partition();
        PositionDeleteWriter<Record> writer =
            new GenericFileWriterFactory.Builder(table)
                .deleteFileFormat(FileFormat.PARQUET)
                .build()
                .newPositionDeleteWriter(
                    outputs(table).newOutputFile(table.spec(), partition), table.spec(), partition);
        PositionDelete<Record> delete = PositionDelete.create();
        try (writer) {
          for (DataFile target : targets) {
            for (long pos : positions(target)) {
              writer.write(delete.set(target.location(), pos));
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        writer.result().deleteFiles().forEach(delta::addDeletes);
      }
    }
    delta.commit();
  }

  /** Ascending positions, about one in four, never all of them. */
  private long[] positions(DataFile target) {
    List<Long> positions = new ArrayList<>();
    for (long pos = 0; pos < target.recordCount() - 1; pos++) {
      if (random.nextInt(4) == 0) {
        positions.add(pos);
      }
    }
    if (positions.isEmpty()) {
      positions.add(0L);
    }
    return positions.stream().mapToLong(Long::longValue).toArray();
  }

  private void deleteIdsAndReinsertSome(Table table) {
    Schema keySchema = schema.select("id");
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .deleteFileFormat(FileFormat.PARQUET)
            .equalityFieldIds(new int[] {1})
            .equalityDeleteRowSchema(keySchema)
            .build();
    RowDelta delta = table.newRowDelta();
    Map<Integer, List<Long>> deleted = new TreeMap<>();
    for (Map.Entry<Integer, List<Long>> entry : idsByPart.entrySet()) {
      List<Long> ids = new ArrayList<>();
      for (long id : entry.getValue()) {
        if (random.nextInt(10) == 0) {
          ids.add(id);
        }
      }
      if (ids.isEmpty()) {
        continue;
      }
      deleted.put(entry.getKey(), ids);
      GenericRecord probe = GenericRecord.create(schema);
      probe.setField("part", entry.getKey());
      PartitionKey partition = partition(table, probe);
      EqualityDeleteWriter<Record> writer =
          writers.newEqualityDeleteWriter(
              outputs(table).newOutputFile(table.spec(), partition), table.spec(), partition);
      try (writer) {
        for (long id : ids) {
          GenericRecord key = GenericRecord.create(keySchema);
          key.setField("id", id);
          writer.write(key);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      delta.addDeletes(writer.toDeleteFile());
    }
    if (deleted.isEmpty()) {
      return;
    }
    delta.commit();
    Map.Entry<Integer, List<Long>> first = deleted.entrySet().iterator().next();
    List<Record> reinserted = new ArrayList<>();
    for (long id : first.getValue().subList(0, Math.min(3, first.getValue().size()))) {
      reinserted.add(row(id, first.getKey()));
    }
    table.newAppend().appendFile(write(table, reinserted)).commit();
  }

  private static List<DataFile> liveFiles(Table table) {
    table.refresh();
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }
}
