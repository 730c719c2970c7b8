package io.icecompact.worker.orc;

import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.orc.CompressionKind;
import org.apache.orc.OrcProto;
import org.apache.orc.StripeInformation;
import org.apache.orc.TypeDescription;

/**
 * A group whose ORC files can be merged by copying their stripes ({@link OrcStripeEligibility}):
 * one schema, codec, compression block size and row index stride, which the merged files are
 * written with.
 */
public record OrcStripeGroup(
    List<Input> inputs,
    TypeDescription schema,
    CompressionKind compression,
    int compressionBlockSize,
    int rowIndexStride,
    List<OrcProto.UserMetadataItem> userMetadata) {

  /** One input file, its stripes and their statistics, in file order. */
  public record Input(
      DataFile file,
      long rows,
      List<StripeInformation> stripes,
      List<OrcProto.StripeStatistics> stripeStatistics) {}

  public long rows() {
    return inputs.stream().mapToLong(Input::rows).sum();
  }
}
