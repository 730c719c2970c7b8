package io.icecompact.worker.columnar;

import com.github.luben.zstd.ZstdDecompressCtx;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The codec factory one group's input files are read with, on one thread: ZSTD pages are
 * decompressed with one reused zstd context (parquet-java's codec sets up a Hadoop decompression
 * stream per page); other codecs go to parquet-java's factory.
 */
final class PageDecompressors implements CompressionCodecFactory, AutoCloseable {
  private final CompressionCodecFactory fallback;
  private final ZstdDecompressCtx zstd = new ZstdDecompressCtx();
  private final BytesInputDecompressor zstdDecompressor =
      new BytesInputDecompressor() {
        @Override
        public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
          byte[] output = new byte[uncompressedSize];
          byte[] input = bytes.toByteArray();
          int size = zstd.decompressByteArray(output, 0, uncompressedSize, input, 0, input.length);
          if (size != uncompressedSize) {
            throw new IOException("ZSTD page decompressed to " + size + " bytes, expected " + uncompressedSize);
          }
          return BytesInput.from(output);
        }

        @Override
        public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
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

  /** Called by every file reader on close; the zstd context lives until {@link #close()}. */
  @Override
  public void release() {
    fallback.release();
  }

  @Override
  public void close() {
    zstd.close();
  }
}
