package io.icecompact.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.RowCountMismatchException;
import io.icecompact.core.rewrite.RewritePath;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.junit.jupiter.api.Test;

/**
 * The part every rewrite path shares: the output is returned only when its rows are the rows read
 * minus the rows deleted, and a failed or miscounted rewrite leaves none of its files behind.
 */
class GroupRewritePathTest {
  private final InMemoryFileIO io = new InMemoryFileIO();
  // the in-memory files are shared by every InMemoryFileIO of the JVM
  private final String folder = "mem://" + java.util.UUID.randomUUID() + "/";

  @Test
  void anOutputWithTheExpectedRowsIsReturnedWithThePathAndReason() {
    FixedPath path = new FixedPath(new GroupRewritePath.RowCounts(100, 30), 40, 30);

    RewriteOutput output = path.rewrite(null, io, done -> {}, "because");

    assertThat(output.rowsWritten()).isEqualTo(70);
    assertThat(List.of(output.rowsRead(), output.rowsDeleted())).containsExactly(100L, 30L);
    assertThat(List.of(output.path(), output.pathReason()))
        .containsExactly(RewritePath.GENERIC, "because");
    assertThat(List.of(output.spilledRuns(), output.spilledBytes()))
        .as("nothing spilled")
        .containsExactly(0, 0L);
    assertThat(output.dataFiles())
        .allSatisfy(file -> assertThat(io.fileExists(file.location())).isTrue());
  }

  @Test
  void theRunsAPathSpilledToSortAreInItsOutput() {
    FixedPath path = new FixedPath(new GroupRewritePath.RowCounts(100, 30, 3, 4096), 70);

    RewriteOutput output = path.rewrite(null, io, done -> {}, "sorted");

    assertThat(List.of(output.spilledRuns(), output.spilledBytes())).containsExactly(3, 4096L);
  }

  @Test
  void anOutputThatLosesRowsIsDeletedAndTheMismatchRaised() {
    FixedPath path = new FixedPath(new GroupRewritePath.RowCounts(100, 30), 40, 29);

    assertThatThrownBy(() -> path.rewrite(null, io, done -> {}, "because"))
        .isInstanceOf(RowCountMismatchException.class)
        .hasMessage("Wrote 69 rows but read 100 and deleted 30 (expected 70 written)");
    assertThat(path.written)
        .hasSize(2)
        .allSatisfy(location -> assertThat(io.fileExists(location)).isFalse());
  }

  @Test
  void aFailedWriteDeletesTheFilesItCompletedAndRaisesTheFailure() {
    IllegalStateException failure = new IllegalStateException("input gone");
    FixedPath path =
        new FixedPath(null, 40, 30) {
          @Override
          public RowCounts write(
              OutputFileFactory files, Consumer<DataFile> completed, IntConsumer progress) {
            super.write(files, completed, progress);
            throw failure;
          }
        };

    assertThatThrownBy(() -> path.rewrite(null, io, done -> {}, "because")).isSameAs(failure);
    assertThat(path.written)
        .hasSize(2)
        .allSatisfy(location -> assertThat(io.fileExists(location)).isFalse());
  }

  /** A path that writes one small file per row count given, and reports {@code rows}. */
  private class FixedPath implements GroupRewritePath {
    final List<String> written = new ArrayList<>();
    private final RowCounts rows;
    private final long[] fileRows;

    FixedPath(RowCounts rows, long... fileRows) {
      this.rows = rows;
      this.fileRows = fileRows;
    }

    @Override
    public String name() {
      return RewritePath.GENERIC;
    }

    @Override
    public RowCounts write(
        OutputFileFactory files, Consumer<DataFile> completed, IntConsumer progress) {
      for (long count : fileRows) {
        String location = folder + written.size() + ".parquet";
        byte[] bytes = ("rows " + count).getBytes(StandardCharsets.UTF_8);
        try (var out = io.newOutputFile(location).create()) {
          out.write(bytes);
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
        written.add(location);
        completed.accept(
            DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(location)
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(bytes.length)
                .withRecordCount(count)
                .build());
      }
      return rows;
    }
  }
}
