package io.icecompact.worker.columnar;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Compresses pages for one group's output, from any of the group's copy threads.
 *
 * <p>For ZSTD (Iceberg's default codec) each thread keeps and reuses one zstd context and its
 * buffers: parquet-java's codec goes through a Hadoop compression stream that sets up a new zstd
 * stream for every page, which cost as much as the compression itself on pages of this size. The
 * frames are the same format either way. Other codecs use parquet-java's compressor, which is not
 * thread-safe ({@link #threadSafe()}).
 */
final class PageCompressor implements AutoCloseable {
  /** parquet-java's default ZSTD level when the table sets none. */
  private static final int PARQUET_DEFAULT_ZSTD_LEVEL = 3;

  private final CompressionCodecName codec;
  private final BytesInputCompressor fallback;
  private final int level;
  private final Queue<ZstdState> states = new ConcurrentLinkedQueue<>();
  private final ThreadLocal<ZstdState> state = ThreadLocal.withInitial(this::newState);

  PageCompressor(CompressionCodecName codec, String level, BytesInputCompressor fallback) {
    this.codec = codec;
    this.fallback = fallback;
    this.level = level == null ? PARQUET_DEFAULT_ZSTD_LEVEL : Integer.parseInt(level.trim());
  }

  /** Whether pages may be compressed from several threads at once. */
  boolean threadSafe() {
    return codec == CompressionCodecName.ZSTD || codec == CompressionCodecName.UNCOMPRESSED;
  }

  byte[] compress(BytesInput page) throws IOException {
    if (codec != CompressionCodecName.ZSTD) {
      return fallback.compress(page).toByteArray();
    }
    return state.get().compress(page);
  }

  private ZstdState newState() {
    ZstdState created = new ZstdState(level);
    states.add(created);
    return created;
  }

  /** Closes every thread's context; called on the group's thread, whose entry is dropped too. */
  @Override
  public void close() {
    state.remove();
    ZstdState closing;
    while ((closing = states.poll()) != null) {
      closing.zstd.close();
    }
  }

  /** One thread's zstd context and buffers. */
  private static final class ZstdState {
    private final ZstdCompressCtx zstd = new ZstdCompressCtx();
    private final ReusedBuffer input = new ReusedBuffer();
    private byte[] output = new byte[0];

    ZstdState(int level) {
      zstd.setLevel(level);
    }

    byte[] compress(BytesInput page) throws IOException {
      // the page's parts (levels, values) gathered into one reused buffer, compressed into another:
      // only the compressed page, which is kept, is a new array
      input.reset();
      page.writeAllTo(input);
      int bound = Math.toIntExact(Zstd.compressBound(input.size()));
      if (output.length < bound) {
        output = new byte[bound];
      }
      int size = zstd.compressByteArray(output, 0, output.length, input.array(), 0, input.size());
      return Arrays.copyOf(output, size);
    }
  }

  /** A byte buffer whose array can be read without a copy. */
  private static final class ReusedBuffer extends ByteArrayOutputStream {
    ReusedBuffer() {
      super(1 << 16);
    }

    byte[] array() {
      return buf;
    }
  }
}
