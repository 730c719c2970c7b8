package io.icecompact.worker.orc;

import io.icecompact.core.rewrite.RewritePath;
import io.icecompact.worker.GroupRewritePath;
import io.icecompact.worker.input.InputFileRead;
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
    Merge merge = new Merge(files, completed);
    int done = 0;
    try {
      for (OrcStripeGroup.Input input : group.inputs()) {
        // typed as the file's when it cannot be read; its rows checked against its metadata
        InputFileRead.checked(input.task(), () -> merge.copy(input));
        progress.accept(++done);
      }
      merge.finish();
    } finally {
      merge.abortOpen();
    }
    return new RowCounts(group.rows(), 0);
  }

  /** The merged file being filled, rolled over at the group's output size. */
  private final class Merge {
    private final OutputFileFactory files;
    private final Consumer<DataFile> completed;
    // the group's one partition (the planner groups by partition; every input is in the output
    // spec)
    private final StructLike partition = group.inputs().get(0).task().file().partition();
    private Output current;
    private byte[] buffer = new byte[0];

    Merge(OutputFileFactory files, Consumer<DataFile> completed) {
      this.files = files;
      this.completed = completed;
    }

    /** Appends every stripe of {@code input}; its rows, all kept. */
    InputFileRead.Rows copy(OrcStripeGroup.Input input) throws IOException {
      DataFile file = input.task().file();
      try (SeekableInputStream in =
          table.io().newInputFile(file.location(), file.fileSizeInBytes()).newStream()) {
        for (int i = 0; i < input.stripes().size(); i++) {
          StripeInformation stripe = input.stripes().get(i);
          if (current != null && current.bytes + stripe.getLength() > maxFileSize) {
            finish();
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
      return new InputFileRead.Rows(input.rows(), input.rows());
    }

    /** Closes the open file, if any, and hands it on. */
    void finish() {
      if (current != null) {
        Output full = current;
        current = null;
        try {
          completed.accept(full.close());
        } catch (IOException e) {
          full.abort();
          throw new UncheckedIOException("Cannot write " + full.location(), e);
        }
      }
    }

    /** Deletes a file left open by a failure. */
    void abortOpen() {
      if (current != null) {
        current.abort();
        current = null;
      }
    }
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
              .setSchema(group.layout().schema())
              .compress(group.layout().compression())
              .rowIndexStride(group.layout().rowIndexStride())
              .version(OrcFile.Version.CURRENT);
      if (group.layout().compression() != CompressionKind.NONE) {
        options.enforceBufferSize().bufferSize(group.layout().compressionBlockSize());
      }
      this.writer = OrcFile.createWriter(new Path(file.encryptingOutputFile().location()), options);
    }

    String location() {
      return file.encryptingOutputFile().location();
    }

    DataFile close() throws IOException {
      writer.appendUserMetadata(group.layout().userMetadata());
      writer.close();
      String location = location();
      long length = fileSystem.writtenLength();
      // read back from the footer: Iceberg's metrics of a live ORC writer (OrcMetrics.fromWriter)
      // are package-private
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
        table.io().deleteFile(location());
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
