package io.icecompact.worker.orc;

import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.orc.CompressionKind;
import org.apache.orc.OrcProto;
import org.apache.orc.Reader;
import org.apache.orc.StripeInformation;
import org.apache.orc.TypeDescription;

/**
 * A group whose ORC files can be merged by copying their stripes ({@link OrcStripeEligibility}):
 * its inputs, and the one layout they share, which the merged files are written with.
 */
public record OrcStripeGroup(List<Input> inputs, Layout layout) {

  /** One input file's task, its rows, and its stripes with their statistics, in file order. */
  public record Input(
      FileScanTask task,
      long rows,
      List<StripeInformation> stripes,
      List<OrcProto.StripeStatistics> stripeStatistics) {}

  /** What a stripe copy needs every input to share, as ORC's file merge does. */
  public record Layout(
      TypeDescription schema,
      CompressionKind compression,
      int compressionBlockSize,
      int rowIndexStride,
      List<OrcProto.UserMetadataItem> userMetadata) {
    static Layout of(Reader reader) {
      return new Layout(
          reader.getSchema(),
          reader.getCompressionKind(),
          reader.getCompressionSize(),
          reader.getRowIndexStride(),
          reader.getFileTail().getFooter().getMetadataList());
    }
  }

  public long rows() {
    return inputs.stream().mapToLong(Input::rows).sum();
  }
}
