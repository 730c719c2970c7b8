package io.icecompact.worker.orc;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.orc.CompressionKind;
import org.apache.orc.OrcFile;
import org.apache.orc.Reader;
import org.apache.orc.StripeInformation;
import org.apache.orc.TypeDescription;

/**
 * Whether a group's ORC files can be merged by copying their stripes, as ORC's own file merge does
 * ({@code OrcFile.mergeFiles}), instead of decoding and re-encoding every value. Only where the
 * copy is the file Spark's rewrite would write, row for row and byte for byte within each stripe:
 * no delete to apply, no row lineage to write (v3), the files in the output spec, one schema with
 * Iceberg's field ids, the table's codec, one compression block size and row index stride, the
 * current ORC writer's version (a reader works around an older writer's bugs by its version), the
 * same user metadata. And only where it pays: stripes that average at least an eighth of {@code
 * write.orc.stripe-size-bytes}. Small streaming files have one small stripe each; merged, a reader
 * would still seek through as many stripes as there were files, so they are rewritten into full
 * stripes on the generic path.
 */
public final class OrcStripeEligibility {
  /** Of the table's stripe size, the least an input's stripes must average to be copied. */
  static final int STRIPE_SIZE_DIVISOR = 8;

  private static final String ICEBERG_ID = "iceberg.id";

  /**
   * What was decided: {@code group} to copy (null when not), and why, in the words of the group's
   * path reason. {@code orc}: the group is an ORC group at all (a Parquet group gets no reason).
   */
  public record Decision(OrcStripeGroup group, boolean orc, String reason) {
    static Decision notOrc() {
      return new Decision(null, false, null);
    }

    static Decision refused(String reason) {
      return new Decision(null, true, "ORC stripes not copied: " + reason);
    }
  }

  private OrcStripeEligibility() {}

  /**
   * Judges the group of {@code tasks} (written under spec {@code outputSpecId}), reading each
   * file's tail through {@code footerIO} once the metadata allows a copy.
   */
  public static Decision judge(
      Table table, FileIO footerIO, List<FileScanTask> tasks, int outputSpecId) {
    if (tasks.isEmpty()
        || tasks.stream().anyMatch(task -> task.file().format() != FileFormat.ORC)) {
      return Decision.notOrc();
    }
    String metadataRefusal = metadataRefusal(table, tasks, outputSpecId);
    if (metadataRefusal != null) {
      return Decision.refused(metadataRefusal);
    }
    CompressionKind tableCodec = tableCodec(table);
    long stripeSize =
        PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.ORC_STRIPE_SIZE_BYTES,
            TableProperties.ORC_STRIPE_SIZE_BYTES_DEFAULT);
    long minStripe = stripeSize / STRIPE_SIZE_DIVISOR;
    // a stripe is no bigger than its file: small files are refused without reading a footer
    long fileBytes = tasks.stream().mapToLong(task -> task.file().fileSizeInBytes()).sum();
    if (fileBytes / tasks.size() < minStripe) {
      return Decision.refused(
          smallStripes("files", tasks.size(), fileBytes / tasks.size(), stripeSize));
    }
    List<OrcStripeGroup.Input> inputs = new ArrayList<>();
    OrcStripeGroup.Layout layout = null;
    long stripeBytes = 0;
    int stripes = 0;
    for (FileScanTask task : tasks) {
      DataFile file = (DataFile) task.file();
      try (Reader reader = open(footerIO, file)) {
        String refusal = fileRefusal(reader, file, tableCodec, layout);
        if (refusal != null) {
          return Decision.refused(refusal);
        }
        if (layout == null) {
          layout = OrcStripeGroup.Layout.of(reader);
        }
        List<StripeInformation> fileStripes = List.copyOf(reader.getStripes());
        for (StripeInformation stripe : fileStripes) {
          stripeBytes += stripe.getLength();
        }
        stripes += fileStripes.size();
        inputs.add(
            new OrcStripeGroup.Input(
                task,
                reader.getNumberOfRows(),
                fileStripes,
                List.copyOf(reader.getOrcProtoStripeStatistics())));
      } catch (IOException | RuntimeException e) {
        // the generic path reads it, and types the failure as the file's
        return Decision.refused("cannot read the footer of " + file.location() + ": " + e);
      }
    }
    long average = stripes == 0 ? 0 : stripeBytes / stripes;
    if (average < minStripe) {
      return Decision.refused(smallStripes("stripes", stripes, average, stripeSize));
    }
    return new Decision(
        new OrcStripeGroup(List.copyOf(inputs), layout),
        true,
        String.format(
            Locale.ROOT,
            "ORC stripes copied whole: no deletes, one schema, codec %s, %d stripes of %d bytes on"
                + " average",
            layout.compression().name().toLowerCase(Locale.ROOT),
            stripes,
            average));
  }

  private static String smallStripes(String what, int count, long average, long stripeSize) {
    return String.format(
        Locale.ROOT,
        "its %d %s average %d bytes, less than an eighth of write.orc.stripe-size-bytes (%d): the"
            + " files are rewritten into full stripes",
        count,
        what,
        average,
        stripeSize);
  }

  private static String metadataRefusal(Table table, List<FileScanTask> tasks, int outputSpecId) {
    if (TableUtil.formatVersion(table) >= 3) {
      return "a v3 table's rewritten rows carry their row lineage, which the files do not store";
    }
    if (table.properties().containsKey(TableProperties.ENCRYPTION_TABLE_KEY)) {
      return "the table is encrypted";
    }
    Set<String> seen = new HashSet<>();
    for (FileScanTask task : tasks) {
      DataFile file = (DataFile) task.file();
      if (!task.deletes().isEmpty()) {
        return "deletes apply to " + file.location();
      }
      if (file.specId() != outputSpecId) {
        return file.location() + " is in spec " + file.specId() + ", the output in " + outputSpecId;
      }
      if (task.start() != 0
          || task.length() != file.fileSizeInBytes()
          || !seen.add(file.location())) {
        return "the group holds part of " + file.location();
      }
    }
    return null;
  }

  /** Why {@code file} cannot be copied, or null; {@code first}: the group's first file's layout. */
  private static String fileRefusal(
      Reader reader, DataFile file, CompressionKind tableCodec, OrcStripeGroup.Layout first) {
    if (reader.getFileVersion() != OrcFile.Version.CURRENT
        || reader.getWriterVersion() != OrcFile.CURRENT_WRITER) {
      return String.format(
          "%s was written as ORC %s by writer version %s, not %s by %s",
          file.location(),
          reader.getFileVersion(),
          reader.getWriterVersion(),
          OrcFile.Version.CURRENT,
          OrcFile.CURRENT_WRITER);
    }
    if (reader.getCompressionKind() != tableCodec) {
      return String.format(
          "%s is compressed with %s, the table writes %s (write.orc.compression-codec)",
          file.location(), reader.getCompressionKind(), tableCodec);
    }
    TypeDescription schema = reader.getSchema();
    if (schema.getChildren() == null
        || schema.getChildren().stream().anyMatch(c -> c.getAttributeValue(ICEBERG_ID) == null)) {
      return file.location() + " was written without Iceberg's field ids";
    }
    if (first == null) {
      return null;
    }
    if (!schema.equals(first.schema())) {
      return file.location() + " has another schema than the group's first file";
    }
    if (reader.getCompressionSize() != first.compressionBlockSize()
        || reader.getRowIndexStride() != first.rowIndexStride()) {
      return file.location()
          + " has another compression block size or row index stride than the group's first file";
    }
    if (!reader.getFileTail().getFooter().getMetadataList().equals(first.userMetadata())) {
      return file.location() + " has other user metadata than the group's first file";
    }
    return null;
  }

  private static CompressionKind tableCodec(Table table) {
    String codec =
        table
            .properties()
            .getOrDefault(TableProperties.ORC_COMPRESSION, TableProperties.ORC_COMPRESSION_DEFAULT);
    try {
      return CompressionKind.valueOf(codec.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      return null; // Iceberg's writer refuses it; no file matches
    }
  }

  static Reader open(FileIO io, DataFile file) throws IOException {
    return OrcFile.createReader(
        new Path(file.location()),
        OrcFile.readerOptions(new Configuration(false))
            .filesystem(
                FileIOFileSystem.reading(io.newInputFile(file.location(), file.fileSizeInBytes())))
            .maxLength(file.fileSizeInBytes()));
  }
}
