package io.icecompact.worker.columnar;

import com.github.luben.zstd.ZstdCompressCtx;
import java.io.IOException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Compresses pages for one group's output, on one thread.
 *
 * <p>For ZSTD (Iceberg's default codec) a single zstd context is kept and reused: parquet-java's codec
 * goes through a Hadoop compression stream that sets up a new zstd stream for every page, which cost
 * as much as the compression itself on pages of this size. The frames are the same format either way.
 * Other codecs use parquet-java's compressor.
 */
final class PageCompressor implements AutoCloseable {
  /** parquet-java's default ZSTD level when the table sets none. */
  private static final int PARQUET_DEFAULT_ZSTD_LEVEL = 3;

  private final BytesInputCompressor fallback;
  private final ZstdCompressCtx zstd;

  PageCompressor(CompressionCodecName codec, String level, BytesInputCompressor fallback) {
    this.fallback = fallback;
    if (codec == CompressionCodecName.ZSTD) {
      this.zstd = new ZstdCompressCtx();
      zstd.setLevel(level == null ? PARQUET_DEFAULT_ZSTD_LEVEL : Integer.parseInt(level.trim()));
    } else {
      this.zstd = null;
    }
  }

  byte[] compress(BytesInput page) throws IOException {
    if (zstd != null) {
      return zstd.compress(page.toByteArray());
    }
    return fallback.compress(page).toByteArray();
  }

  @Override
  public void close() {
    if (zstd != null) {
      zstd.close();
    }
  }
}
