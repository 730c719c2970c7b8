package io.icecompact.worker.columnar;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.conf.HadoopParquetConfiguration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.util.HadoopCodecs;

/**
 * parquet-java read options over an empty Hadoop configuration. {@code
 * ParquetReadOptions.builder()} without an argument builds a {@code new Configuration()}, which
 * parses core-default.xml on every call (about 18% of a small group's time, profiled);
 * parquet-java's read settings and codecs keep their defaults in code, and the columnar path sets
 * none of them.
 */
final class ReadOptions {
  // never modified, so shared: a Configuration's reads are thread-safe
  private static final ParquetConfiguration EMPTY =
      new HadoopParquetConfiguration(new Configuration(false));

  private ReadOptions() {}

  /**
   * A new builder. The options it builds hold their own codec factory, which caches codecs and is
   * not thread-safe: build options per rewrite, not once for all.
   */
  static ParquetReadOptions.Builder builder() {
    return ParquetReadOptions.builder(EMPTY);
  }

  /**
   * parquet-java's codec factory over the same configuration; like the options, one per rewrite.
   */
  static CompressionCodecFactory newCodecFactory() {
    return HadoopCodecs.newFactory(EMPTY, 0);
  }
}
