package io.icecompact.worker.orc;

import io.icecompact.core.rewrite.RewritePath;
import io.icecompact.worker.GroupRewritePath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.IOUtil;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.orc.OrcMetrics;
import org.apache.orc.CompressionKind;
import org.apache.orc.OrcFile;
import org.apache.orc.StripeInformation;
import org.apache.orc.Writer;

/**
 * Merges a group's ORC files by copying their stripes whole into files of at most the group's
 * output size ({@code Writer.appendStripe}, as ORC's file merge does): no value is decoded. Each
 * output's footer statistics are merged from the stripes' by ORC's writer, and its Iceberg metrics
 * read back from that footer, as Iceberg's ORC writer derives them.
 */
public final class OrcStripeCopyPath implements GroupRewritePath {
  private final Table table;
  private final PartitionSpec spec;
  private final long maxFileSize;
  private final OrcStripeGroup group;

  public OrcStripeCopyPath(Table table, int outputSpecId, long maxFileSize, OrcStripeGroup group) {
    this.table = table;
    this.spec = table.specs().get(outputSpecId);
    this.maxFileSize = maxFileSize;
    this.group = group;
  }

  @Override
  public String name() {
    return RewritePath.ORC_STRIPES;
  }

  @Override
  public RowCounts write(
      OutputFileFactory files, Consumer<DataFile> completed, IntConsumer progress) {
    StructLike partition = group.inputs().get(0).file().partition();
    Output current = null;
    byte[] buffer = new byte[0];
    int done = 0;
    try {
      for (OrcStripeGroup.Input input : group.inputs()) {
        try (SeekableInputStream in =
            table
                .io()
                .newInputFile(input.file().location(), input.file().fileSizeInBytes())
                .newStream()) {
          for (int i = 0; i < input.stripes().size(); i++) {
            StripeInformation stripe = input.stripes().get(i);
            if (current != null && current.bytes + stripe.getLength() > maxFileSize) {
              Output full = current;
              current = null;
              completed.accept(full.close());
            }
            if (current == null) {
              current = new Output(files.newOutputFile(spec, partition), partition);
            }
            int length = Math.toIntExact(stripe.getLength());
            if (buffer.length < length) {
              buffer = new byte[length];
            }
            in.seek(stripe.getOffset());
            IOUtil.readFully(in, buffer, 0, length);
            current.writer.appendStripe(buffer, 0, length, stripe, input.stripeStatistics().get(i));
            current.bytes += length;
          }
        }
        progress.accept(++done);
      }
      if (current != null) {
        Output last = current;
        current = null;
        completed.accept(last.close());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot copy the ORC stripes of the group", e);
    } finally {
      if (current != null) {
        current.abort();
      }
    }
    return new RowCounts(group.rows(), 0);
  }

  /** One merged file being written. */
  private final class Output {
    private final EncryptedOutputFile file;
    private final StructLike partition;
    private final FileIOFileSystem fileSystem;
    private final Writer writer;
    private long bytes;

    Output(EncryptedOutputFile file, StructLike partition) throws IOException {
      this.file = file;
      this.partition = partition;
      this.fileSystem = FileIOFileSystem.writing(file.encryptingOutputFile());
      OrcFile.WriterOptions options =
          OrcFile.writerOptions(new Configuration(false))
              .fileSystem(fileSystem)
              .setSchema(group.schema())
              .compress(group.compression())
              .rowIndexStride(group.rowIndexStride())
              .version(OrcFile.Version.CURRENT);
      if (group.compression() != CompressionKind.NONE) {
        options.enforceBufferSize().bufferSize(group.compressionBlockSize());
      }
      this.writer = OrcFile.createWriter(new Path(file.encryptingOutputFile().location()), options);
    }

    DataFile close() throws IOException {
      writer.appendUserMetadata(group.userMetadata());
      writer.close();
      String location = file.encryptingOutputFile().location();
      long length = fileSystem.writtenLength();
      Metrics metrics =
          OrcMetrics.fromInputFile(
              table.io().newInputFile(location, length), MetricsConfig.forTable(table), mapping());
      return DataFiles.builder(spec)
          .withPath(location)
          .withFormat(FileFormat.ORC)
          .withPartition(partition)
          .withFileSizeInBytes(length)
          .withMetrics(metrics)
          .withSplitOffsets(writer.getStripes().stream().map(StripeInformation::getOffset).toList())
          .withEncryptionKeyMetadata(file.keyMetadata())
          .build();
    }

    void abort() {
      try {
        writer.close();
      } catch (IOException | RuntimeException ignored) {
        // the failure being raised matters more
      }
      try {
        table.io().deleteFile(file.encryptingOutputFile().location());
      } catch (RuntimeException ignored) {
        // an undeletable orphan is left for remove_orphan_files
      }
    }
  }

  private NameMapping mapping() {
    String json = table.properties().get(TableProperties.DEFAULT_NAME_MAPPING);
    return json == null ? null : NameMappingParser.fromJson(json);
  }
}
