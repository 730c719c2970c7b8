package io.icecompact.core.table;

import java.util.Map;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.NameMappingParser;

/**
 * The one place that names a file format: which format a group's output is written in (the table's,
 * as Spark's rewrite writes it) and how any input file is read as generic rows (Iceberg's
 * format-model registry: Parquet, ORC and Avro, each with Iceberg's own reader).
 */
public final class TableFormats {
  private TableFormats() {}

  /**
   * The format new data files are written in: the table's {@code write.format.default} (Parquet
   * when unset), whatever formats the inputs are in.
   */
  public static FileFormat dataFormat(Table table) {
    return FileFormat.fromString(
        table
            .properties()
            .getOrDefault(
                TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT));
  }

  /**
   * The format new delete files are written in: {@code write.delete.format.default}, else the data
   * format (Iceberg's own default).
   */
  public static FileFormat deleteFormat(Table table) {
    String format = table.properties().get(TableProperties.DELETE_DEFAULT_FILE_FORMAT);
    return format == null ? dataFormat(table) : FileFormat.fromString(format);
  }

  /**
   * The rows of {@code file} between {@code start} and {@code start + length}, projected to {@code
   * projection} with {@code constants} for the columns a file does not store (identity partition
   * values, row lineage), in the file's own format. A file written without field ids (a table
   * migrated from Hive: {@code migrate}, {@code add_files}) is read through the table's {@code
   * schema.name-mapping.default}, as Iceberg's readers do.
   */
  public static CloseableIterable<Record> read(
      Table table,
      FileIO io,
      ContentFile<?> file,
      long start,
      long length,
      Schema projection,
      Map<Integer, ?> constants) {
    return readBuilder(
            table,
            io.newInputFile(file.location(), file.fileSizeInBytes()),
            file.format(),
            projection)
        .idToConstant(constants)
        .split(start, length)
        .build();
  }

  /**
   * Every row of {@code input}, a {@code format} file of {@code table}, projected to {@code
   * projection}; metadata columns such as {@code _pos} are filled in by the format's reader.
   */
  public static CloseableIterable<Record> read(
      Table table, InputFile input, FileFormat format, Schema projection) {
    return readBuilder(table, input, format, projection).build();
  }

  private static ReadBuilder<Record, ?> readBuilder(
      Table table, InputFile input, FileFormat format, Schema projection) {
    ReadBuilder<Record, ?> read =
        FormatModelRegistry.<Record, Object>readBuilder(format, Record.class, input)
            .project(projection);
    String mapping = table.properties().get(TableProperties.DEFAULT_NAME_MAPPING);
    if (mapping != null) {
      read.withNameMapping(NameMappingParser.fromJson(mapping));
    }
    return read;
  }
}
