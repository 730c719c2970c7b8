package io.icecompact.worker.columnar;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.MetricsUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.io.DeleteSchemaUtil;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.ParquetCodecFactory;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

/**
 * A Parquet appender of position deletes (file_path, pos), under Iceberg's {@code
 * PositionDeleteWriter} or, for a file of one data file, {@link #writeOneDataFile}: the file is
 * laid out as Iceberg's Parquet delete writer lays it out (Iceberg's position delete schema and
 * field ids, the {@code iceberg.schema} footer key, the table's {@code write.delete.parquet.*}
 * settings falling back to {@code write.parquet.*}, v1 pages) and its metrics are Iceberg's, from
 * the footer ({@code ParquetUtil.footerMetrics} under {@code MetricsConfig.forPositionDelete()}).
 *
 * <p>Written on parquet-java's writer because Iceberg's builder makes a new Hadoop {@code
 * Configuration()} for every file, which parses core-default.xml: converting a CDC table writes a
 * position delete file per data file, and that parse took a quarter of the conversion's CPU and a
 * third of its allocation (profiled, 475 files).
 */
public final class PositionDeleteAppender<T> implements FileAppender<PositionDelete<T>> {
  private static final Schema SCHEMA = DeleteSchemaUtil.pathPosSchema();
  private static final MessageType FILE_SCHEMA = ParquetSchemaUtil.convert(SCHEMA, "table");
  private static final String PATH = MetadataColumns.DELETE_FILE_PATH.name();
  private static final String POS = MetadataColumns.DELETE_FILE_POS.name();

  /** As Iceberg's {@code Parquet.DeleteWriteBuilder} sets them for position deletes. */
  private static final Map<String, String> FOOTER_KEY_VALUES =
      Map.of("iceberg.schema", SchemaParser.toJson(SCHEMA), "delete-type", "position");

  /**
   * The delete settings and the data settings each falls back to, as Iceberg's builder reads them.
   */
  private static final Map<String, String> DELETE_SETTINGS =
      Map.of(
          TableProperties.DELETE_PARQUET_COMPRESSION, TableProperties.PARQUET_COMPRESSION,
          TableProperties.DELETE_PARQUET_COMPRESSION_LEVEL,
              TableProperties.PARQUET_COMPRESSION_LEVEL,
          TableProperties.DELETE_PARQUET_ROW_GROUP_SIZE_BYTES,
              TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
          TableProperties.DELETE_PARQUET_PAGE_SIZE_BYTES, TableProperties.PARQUET_PAGE_SIZE_BYTES,
          TableProperties.DELETE_PARQUET_PAGE_ROW_LIMIT, TableProperties.PARQUET_PAGE_ROW_LIMIT,
          TableProperties.DELETE_PARQUET_DICT_SIZE_BYTES, TableProperties.PARQUET_DICT_SIZE_BYTES);

  /** Bytes the compressor's buffer starts with; it grows to a page's size when one needs it. */
  private static final int INITIAL_COMPRESSION_BUFFER = 16 * 1024;

  private final ParquetOutputOf output;
  private final ParquetWriter<PositionDelete<T>> writer;
  private ParquetMetadata footer;

  /**
   * Creates {@code file}, written with the table's settings ({@code tableProperties}); the caller
   * closes the appender (Iceberg's {@code PositionDeleteWriter} does).
   */
  public PositionDeleteAppender(OutputFile file, Map<String, String> tableProperties) {
    WriteSettings settings = deleteSettings(tableProperties);
    this.output = new ParquetOutputOf(file);
    try {
      this.writer =
          new Builder<T>(output)
              .withConf(WriteSettings.codecConf(settings.codec, settings.compressionLevel))
              // parquet-java's own factory gives the compressor a buffer of a page (1 MB) to start
              // with, for files of a few kilobytes: 2 GB allocated converting 475 files (profiled)
              .withCodecFactory(
                  new ParquetCodecFactory(
                      WriteSettings.codecConf(settings.codec, settings.compressionLevel),
                      INITIAL_COMPRESSION_BUFFER))
              .withWriteMode(ParquetFileWriter.Mode.CREATE)
              .withCompressionCodec(settings.codec)
              .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
              .withRowGroupSize(settings.rowGroupSize)
              .withPageSize(settings.pageSize)
              .withPageRowCountLimit(settings.pageRowLimit)
              .withDictionaryPageSize(settings.dictionaryPageSize)
              .withDictionaryEncoding(true)
              // a file's positions are distinct, so a dictionary never pays and parquet-java falls
              // back to PLAIN from the first page, as under Iceberg's writer: without building
              // one first (hashing every position)
              .withDictionaryEncoding(POS, false)
              .build();
    } catch (IOException e) {
      output.closeQuietly();
      throw new UncheckedIOException("Cannot create " + file.location(), e);
    }
  }

  /** The table's settings for delete files, each falling back to the data files' setting. */
  private static WriteSettings deleteSettings(Map<String, String> tableProperties) {
    Map<String, String> properties = new HashMap<>(tableProperties);
    DELETE_SETTINGS.forEach(
        (delete, data) -> {
          if (tableProperties.containsKey(delete)) {
            properties.put(data, tableProperties.get(delete));
          }
        });
    return new WriteSettings(properties);
  }

  /**
   * Writes the positions, ascending, of one data file ({@code dataFile}) into {@code file} with the
   * table's settings and returns its delete file as Iceberg's {@code PositionDeleteWriter} makes it
   * for a file naming one data file: split offsets, size and the footer's metrics with the bounds
   * (which name the data file) kept and the value counts dropped. Not through that writer, because
   * it hashes every row's path into a set to learn which data files the file names (a fifth of
   * writing a conversion's delete files, profiled); here there is one. Written page by page ({@link
   * PositionDeletePages}) when the positions fit one row group, else through this appender.
   * Unencrypted files only.
   */
  public static DeleteFile writeOneDataFile(
      OutputFile file,
      Map<String, String> tableProperties,
      PartitionSpec spec,
      StructLike partition,
      String dataFile,
      long[] positions) {
    WriteSettings settings = deleteSettings(tableProperties);
    ParquetMetadata footer;
    long length;
    if (PositionDeletePages.fits(positions.length, settings)) {
      ParquetOutputOf output = new ParquetOutputOf(file);
      try (PageCompressor compressor = compressor(settings)) {
        footer =
            PositionDeletePages.write(
                output, FILE_SCHEMA, FOOTER_KEY_VALUES, settings, compressor, dataFile, positions);
      } catch (IOException e) {
        output.closeQuietly();
        throw new UncheckedIOException("Cannot write position deletes of " + dataFile, e);
      }
      length = output.finalLength();
    } else {
      PositionDeleteAppender<Object> appender = new PositionDeleteAppender<>(file, tableProperties);
      PositionDelete<Object> delete = PositionDelete.create();
      try (appender) {
        for (long position : positions) {
          appender.add(delete.set(dataFile, position));
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot write position deletes of " + dataFile, e);
      }
      footer = appender.footer;
      length = appender.length();
    }
    return FileMetadata.deleteFileBuilder(spec)
        .ofPositionDeletes()
        .withFormat(FileFormat.PARQUET)
        .withPath(file.location())
        .withPartition(partition)
        .withSplitOffsets(ParquetUtil.getSplitOffsets(footer))
        .withFileSizeInBytes(length)
        .withMetrics(
            MetricsUtil.copyWithoutFieldCounts(
                ParquetUtil.footerMetrics(
                    footer, Stream.empty(), MetricsConfig.forPositionDelete()),
                Set.of(
                    MetadataColumns.DELETE_FILE_PATH.fieldId(),
                    MetadataColumns.DELETE_FILE_POS.fieldId())))
        .build();
  }

  /**
   * A compressor for one file: parquet-java's for other codecs than ZSTD, with a small buffer to
   * start with (see the constructor).
   */
  private static PageCompressor compressor(WriteSettings settings) {
    return new PageCompressor(
        settings.codec,
        settings.compressionLevel,
        settings.codec == CompressionCodecName.ZSTD
            ? null
            : new ParquetCodecFactory(
                    WriteSettings.codecConf(settings.codec, settings.compressionLevel),
                    INITIAL_COMPRESSION_BUFFER)
                .getCompressor(settings.codec));
  }

  @Override
  public void add(PositionDelete<T> delete) {
    try {
      writer.write(delete);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Metrics metrics() {
    checkClosed();
    return ParquetUtil.footerMetrics(footer, Stream.empty(), MetricsConfig.forPositionDelete());
  }

  @Override
  public long length() {
    Long length = output.finalLength();
    return length != null ? length : writer.getDataSize();
  }

  @Override
  public List<Long> splitOffsets() {
    checkClosed();
    return ParquetUtil.getSplitOffsets(footer);
  }

  @Override
  public void close() throws IOException {
    if (footer == null) {
      try {
        writer.close();
      } finally {
        output.closeQuietly();
      }
      footer = writer.getFooter();
    }
  }

  private void checkClosed() {
    if (footer == null) {
      throw new IllegalStateException("The appender is not closed yet");
    }
  }

  private static final class Builder<T>
      extends ParquetWriter.Builder<PositionDelete<T>, Builder<T>> {
    Builder(ParquetOutputOf file) {
      super(file);
    }

    @Override
    protected Builder<T> self() {
      return this;
    }

    @Override
    protected WriteSupport<PositionDelete<T>> getWriteSupport(Configuration conf) {
      return new PathPositionWriteSupport<>();
    }
  }

  /** Writes (file_path, pos); a run of deletes of one data file converts its path once. */
  private static final class PathPositionWriteSupport<T> extends WriteSupport<PositionDelete<T>> {
    private RecordConsumer consumer;
    private CharSequence lastPath;
    private Binary lastBinary;

    @Override
    public WriteContext init(Configuration configuration) {
      return new WriteContext(FILE_SCHEMA, FOOTER_KEY_VALUES);
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      this.consumer = recordConsumer;
    }

    @Override
    public void write(PositionDelete<T> delete) {
      CharSequence path = delete.path();
      if (path != lastPath) {
        lastPath = path;
        // array-backed: parquet-java hashes it into the dictionary and compares it with the page's
        // bounds for every row, which on a ByteBuffer-backed Binary went byte by byte through
        // the buffer (profiled at a tenth of writing a conversion's delete files)
        lastBinary = Binary.fromConstantByteArray(path.toString().getBytes(StandardCharsets.UTF_8));
      }
      consumer.startMessage();
      consumer.startField(PATH, 0);
      consumer.addBinary(lastBinary);
      consumer.endField(PATH, 0);
      consumer.startField(POS, 1);
      consumer.addLong(delete.pos());
      consumer.endField(POS, 1);
      consumer.endMessage();
    }
  }
}
