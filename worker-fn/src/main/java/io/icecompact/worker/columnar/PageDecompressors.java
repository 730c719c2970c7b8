package io.icecompact.worker.columnar;

import com.github.luben.zstd.ZstdDecompressCtx;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The codec factory one group's input files are read with: ZSTD pages are decompressed with one
 * reused zstd context per thread (parquet-java's codec sets up a Hadoop decompression stream per
 * page), so the group's copy threads may decompress pages of one row group at once; other codecs go
 * to parquet-java's factory, which is not thread-safe.
 */
final class PageDecompressors implements CompressionCodecFactory, AutoCloseable {
  private final CompressionCodecFactory fallback;
  private final Queue<ZstdDecompressCtx> contexts = new ConcurrentLinkedQueue<>();
  private final ThreadLocal<ZstdDecompressCtx> zstd =
      ThreadLocal.withInitial(
          () -> {
            ZstdDecompressCtx context = new ZstdDecompressCtx();
            contexts.add(context);
            return context;
          });
  private final BytesInputDecompressor zstdDecompressor =
      new BytesInputDecompressor() {
        @Override
        public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
          byte[] output = new byte[uncompressedSize];
          byte[] input = bytes.toByteArray();
          int size =
              zstd.get().decompressByteArray(output, 0, uncompressedSize, input, 0, input.length);
          if (size != uncompressedSize) {
            throw new IOException(
                "ZSTD page decompressed to " + size + " bytes, expected " + uncompressedSize);
          }
          return BytesInput.from(output);
        }

        @Override
        public void decompress(
            ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
            throws IOException {
          byte[] in = new byte[compressedSize];
          input.duplicate().get(in);
          output.put(decompress(BytesInput.from(in), uncompressedSize).toByteArray());
        }

        @Override
        public void release() {}
      };

  PageDecompressors(CompressionCodecFactory fallback) {
    this.fallback = fallback;
  }

  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codec) {
    return fallback.getCompressor(codec);
  }

  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
    return codec == CompressionCodecName.ZSTD ? zstdDecompressor : fallback.getDecompressor(codec);
  }

  /** Called by every file reader on close; the zstd contexts live until {@link #close()}. */
  @Override
  public void release() {
    fallback.release();
  }

  @Override
  public void close() {
    zstd.remove(); // the group's thread outlives the group (a warm Lambda's, the runner's)
    ZstdDecompressCtx context;
    while ((context = contexts.poll()) != null) {
      context.close();
    }
  }
}
