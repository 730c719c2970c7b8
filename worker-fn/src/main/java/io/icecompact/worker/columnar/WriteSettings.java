package io.icecompact.worker.columnar;

import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.parquet.ParquetCodecFactory;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.factory.DefaultV1ValuesWriterFactory;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The table's Parquet write properties, read the way Iceberg's own writer reads them, as the
 * parquet-java objects the columnar path writes with.
 */
final class WriteSettings {
  final long rowGroupSize;
  final int pageSize;
  final int pageRowLimit;
  final CompressionCodecName codec;
  private BytesInputCompressor codecCompressor; // made on first use: see newCompressor
  final String compressionLevel;
  final int dictionaryPageSize;
  private final int minRowsForSizeCheck;
  private final int maxRowsForSizeCheck;

  WriteSettings(Map<String, String> properties) {
    this.rowGroupSize =
        PropertyUtil.propertyAsLong(
            properties,
            TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
            TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES_DEFAULT);
    this.pageSize =
        PropertyUtil.propertyAsInt(
            properties,
            TableProperties.PARQUET_PAGE_SIZE_BYTES,
            TableProperties.PARQUET_PAGE_SIZE_BYTES_DEFAULT);
    this.pageRowLimit =
        PropertyUtil.propertyAsInt(
            properties,
            TableProperties.PARQUET_PAGE_ROW_LIMIT,
            TableProperties.PARQUET_PAGE_ROW_LIMIT_DEFAULT);
    this.dictionaryPageSize =
        PropertyUtil.propertyAsInt(
            properties,
            TableProperties.PARQUET_DICT_SIZE_BYTES,
            TableProperties.PARQUET_DICT_SIZE_BYTES_DEFAULT);
    this.minRowsForSizeCheck =
        PropertyUtil.propertyAsInt(
            properties,
            TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT,
            TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT_DEFAULT);
    this.maxRowsForSizeCheck =
        PropertyUtil.propertyAsInt(
            properties,
            TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT,
            TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT_DEFAULT);
    this.codec =
        CompressionCodecName.fromConf(
            properties
                .getOrDefault(
                    TableProperties.PARQUET_COMPRESSION,
                    TableProperties.PARQUET_COMPRESSION_DEFAULT)
                .toUpperCase(Locale.ROOT));
    this.compressionLevel = properties.get(TableProperties.PARQUET_COMPRESSION_LEVEL);
  }

  /**
   * A compressor for one thread's output; close it when the group is done. parquet-java's
   * compressor is made on the first call, not with the settings: it allocates a buffer of a page (1
   * MB), which a writer of small files that compresses through its own (a conversion's position
   * delete files) would allocate for nothing, once a file.
   */
  synchronized PageCompressor newCompressor() {
    if (codecCompressor == null) {
      codecCompressor =
          new ParquetCodecFactory(codecConf(codec, compressionLevel), pageSize)
              .getCompressor(codec);
    }
    return new PageCompressor(codec, compressionLevel, codecCompressor);
  }

  /** Same keys as Iceberg's writer sets for a compression level. */
  static Configuration codecConf(CompressionCodecName codec, String level) {
    Configuration conf = new Configuration(false);
    if (level != null) {
      switch (codec) {
        case GZIP -> conf.set("zlib.compress.level", level);
        case BROTLI -> conf.set("compression.brotli.quality", level);
        case ZSTD -> {
          conf.set("io.compression.codec.zstd.level", level);
          conf.set("parquet.compression.codec.zstd.level", level);
        }
        default -> {}
      }
    }
    return conf;
  }

  /**
   * Encoder settings for one output column. Each call builds its own v1 values-writer factory:
   * {@code ParquetProperties.build()} initializes the factory it is given with itself, and both the
   * default factory and {@code DefaultValuesWriterFactory} (which delegates to static instances)
   * are shared, so a second configuration would silently rewrite the first (a column lost its
   * dictionary that way; see WriteSettingsTest). With a dictionary, INT32, INT64 and BINARY columns
   * are written by {@link DictionaryColumnWriter} under these settings.
   */
  ParquetProperties properties(boolean dictionary) {
    return ParquetProperties.builder()
        .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
        .withValuesWriterFactory(new DefaultV1ValuesWriterFactory())
        .withPageSize(pageSize)
        .withPageRowCountLimit(pageRowLimit)
        .withDictionaryEncoding(dictionary)
        .withDictionaryPageSize(dictionaryPageSize)
        .withMinRowCountForPageSizeCheck(minRowsForSizeCheck)
        .withMaxRowCountForPageSizeCheck(maxRowsForSizeCheck)
        .build();
  }
}
