package io.icecompact.worker.columnar;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Type;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * One output data file being written: the open row group's column sinks, the Parquet file writer
 * they flush into in schema order, and the float metrics Iceberg needs besides the footer.
 */
final class ColumnarFileWriter {
  private final EncryptedOutputFile output;
  private final OutputColumns columns;
  private final WriteSettings settings;
  private final ParquetProperties dictionaryOn;
  private final ParquetProperties dictionaryOff;
  private final PageCompressor compressor;
  private final ParquetFileWriter writer;
  private final ParquetOutputOf stream;
  private final FloatingPointMetrics[] floatMetrics;
  private final boolean[] plainColumns;
  private final int[] dictionarySizes; // of the previous row group's dictionary columns
  private ColumnSink[] sinks;
  private long rowGroupRows;
  private long rows;

  ColumnarFileWriter(
      EncryptedOutputFile output,
      OutputColumns columns,
      WriteSettings settings,
      ParquetProperties dictionaryOn,
      ParquetProperties dictionaryOff,
      PageCompressor compressor)
      throws IOException {
    this.compressor = compressor;
    this.output = output;
    this.columns = columns;
    this.settings = settings;
    this.dictionaryOn = dictionaryOn;
    this.dictionaryOff = dictionaryOff;
    this.stream = new ParquetOutputOf(output.encryptingOutputFile());
    this.writer =
        new ParquetFileWriter(
            stream,
            columns.type,
            ParquetFileWriter.Mode.OVERWRITE,
            settings.rowGroupSize,
            0,
            ParquetProperties.DEFAULT_COLUMN_INDEX_TRUNCATE_LENGTH,
            ParquetProperties.DEFAULT_STATISTICS_TRUNCATE_LENGTH,
            ParquetProperties.DEFAULT_PAGE_WRITE_CHECKSUM_ENABLED);
    writer.start();
    this.floatMetrics = new FloatingPointMetrics[columns.size()];
    for (int c = 0; c < floatMetrics.length; c++) {
      Type type = columns.fields[c].type();
      if (type.typeId() == Type.TypeID.FLOAT || type.typeId() == Type.TypeID.DOUBLE) {
        floatMetrics[c] = new FloatingPointMetrics(columns.fieldId(c), type);
      }
    }
    this.plainColumns = new boolean[columns.size()];
    this.dictionarySizes = new int[columns.size()];
  }

  String location() {
    return output.encryptingOutputFile().location();
  }

  /**
   * The sink of column {@code c} in the open row group, opened on first use. {@code plain} asks for
   * a column without dictionary (one that may receive copied pages); it only counts when the row
   * group's sink for the column is opened.
   */
  ColumnSink sink(int c, boolean plain) {
    if (sinks == null) {
      sinks = new ColumnSink[columns.size()];
    }
    if (sinks[c] == null) {
      plainColumns[c] = plain;
      sinks[c] =
          new ColumnSink(
              columns.columns.get(c),
              plain ? dictionaryOff : dictionaryOn,
              dictionaryOff,
              settings,
              compressor,
              dictionarySizes[c]);
    }
    return sinks[c];
  }

  boolean isPlain(int c) {
    return sinks != null && sinks[c] != null && plainColumns[c];
  }

  FloatingPointMetrics floatMetrics(int c) {
    return floatMetrics[c];
  }

  void rowsAdded(long count) {
    rowGroupRows += count;
    rows += count;
  }

  long rowGroupBytes() {
    if (sinks == null) {
      return 0;
    }
    long bytes = 0;
    for (ColumnSink sink : sinks) {
      bytes += sink == null ? 0 : sink.bufferedBytes();
    }
    return bytes;
  }

  /** Bytes written plus the open row group's, compared with the target file size. */
  long estimatedLength() throws IOException {
    return writer.getPos() + rowGroupBytes();
  }

  long rows() {
    return rows;
  }

  void flushRowGroup() throws IOException {
    if (rowGroupRows == 0) {
      sinks = null;
      return;
    }
    writer.startBlock(rowGroupRows);
    for (int c = 0; c < sinks.length; c++) {
      ColumnSink sink = sink(c, false);
      if (sink.dictionary() != null) {
        dictionarySizes[c] = sink.dictionary().dictionarySize();
      }
      sink.writeTo(writer);
    }
    writer.endBlock();
    sinks = null;
    rowGroupRows = 0;
  }

  DataFile close(PartitionSpec spec, StructLike partition, MetricsConfig metricsConfig)
      throws IOException {
    flushRowGroup();
    writer.end(Map.of("iceberg.schema", SchemaParser.toJson(columns.schema)));
    ParquetMetadata footer = writer.getFooter();
    List<FieldMetrics<?>> fieldMetrics = new ArrayList<>();
    for (FloatingPointMetrics metrics : floatMetrics) {
      if (metrics != null) {
        fieldMetrics.add(metrics.build());
      }
    }
    Metrics metrics = ParquetUtil.footerMetrics(footer, fieldMetrics.stream(), metricsConfig);
    return DataFiles.builder(spec)
        .withPath(location())
        .withFormat(FileFormat.PARQUET)
        .withPartition(partition)
        .withEncryptionKeyMetadata(output.keyMetadata())
        .withFileSizeInBytes(Objects.requireNonNull(stream.finalLength(), "file not closed"))
        .withMetrics(metrics)
        .withSplitOffsets(ParquetUtil.getSplitOffsets(footer))
        .withSortOrder(SortOrder.unsorted())
        .build();
  }

  /** Closes the file after a failure; the caller deletes it. */
  void abort() {
    try {
      writer.abort();
    } catch (RuntimeException ignored) {
      // the file is deleted next
    }
    stream.closeQuietly();
  }
}
