package io.icecompact.bench;

import io.icecompact.cli.flags.OneOf;
import io.icecompact.cli.flags.WholeNumber;
import io.icecompact.worker.RewritePathChoice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** The options several modes share, as picocli mixins: each mode takes only those it uses. */
final class BenchOptions {
  private BenchOptions() {}

  /** Every mode: where its tables are built. */
  static final class Warehouse {
    @Option(
        names = "--warehouse",
        paramLabel = "DIR",
        description = "Where to build the tables (default: a temporary directory)")
    Path warehouse;

    /** The given directory, else a new temporary one. */
    Path base() throws IOException {
      return warehouse != null ? warehouse : Files.createTempDirectory("icecompact-bench-");
    }
  }

  /** paths, memory, e2e: the rewrite paths compared. */
  static final class Paths {
    @Option(
        names = "--paths",
        split = ",",
        defaultValue = "GENERIC,AUTO",
        description = "Rewrite path choices to run (default: ${DEFAULT-VALUE})")
    List<RewritePathChoice> paths;
  }

  /** paths and e2e: worker threads. */
  static final class Threads {
    @Option(
        names = {"--threads", "--workers"},
        split = ",",
        defaultValue = "1,2",
        converter = WholeNumber.Positive.class,
        description = "Worker thread counts to run, e.g. 1,2 (default: ${DEFAULT-VALUE})")
    List<Integer> threads;
  }

  /** paths, memory and e2e: unmeasured runs first. */
  static final class Warmups {
    @Option(
        names = "--warmups",
        defaultValue = "1",
        converter = WholeNumber.NonNegative.class,
        description =
            "Runs of each configuration before the measured ones, while the JIT compiles (default: ${DEFAULT-VALUE})")
    int warmups;
  }

  /** paths, memory and commit-race: measured runs. */
  static final class Rounds {
    @Option(
        names = "--rounds",
        defaultValue = "3",
        converter = WholeNumber.Positive.class,
        description =
            "Measured runs of each configuration; the median is reported (default: ${DEFAULT-VALUE})")
    int rounds;
  }

  /** paths and memory: the generated table and how its groups are rewritten. */
  static final class Rewrite {
    static final String DEFAULT_FILES = "600";

    @Option(
        names = "--files",
        defaultValue = DEFAULT_FILES,
        converter = WholeNumber.Positive.class,
        description = "Data files (default: ${DEFAULT-VALUE})")
    int files;

    @Option(
        names = "--rows-per-file",
        defaultValue = "12000",
        converter = WholeNumber.Positive.class,
        description = "Rows per file (default: ${DEFAULT-VALUE}, ~330 KB)")
    int rowsPerFile;

    @Option(
        names = "--delete-files",
        defaultValue = "200",
        converter = WholeNumber.NonNegative.class,
        description =
            "Files with every 50th row deleted by position, in the deletes shapes (default: ${DEFAULT-VALUE})")
    int deleteFiles;

    @Option(
        names = "--equality-deletes",
        defaultValue = "1000",
        converter = WholeNumber.NonNegative.class,
        description = "Ids deleted by equality, in the deletes shapes (default: ${DEFAULT-VALUE})")
    int equalityDeletes;

    @Option(
        names = "--format-version",
        defaultValue = "2",
        converter = io.icecompact.cli.flags.FormatVersion.class,
        description = "Format version of the generated tables, 2 or 3 (default: ${DEFAULT-VALUE})")
    int formatVersion;

    @Option(
        names = "--file-format",
        defaultValue = "parquet",
        description =
            "write.format.default of the generated tables: parquet, orc or avro; its data and delete"
                + " files are written in it, and so are the rewrite's outputs (default: ${DEFAULT-VALUE})")
    String fileFormat;

    @Option(
        names = "--orc-stripe-size-bytes",
        defaultValue = "0",
        converter = WholeNumber.NonNegativeLong.class,
        description =
            "write.orc.stripe-size-bytes of the generated tables, 0 for Iceberg's default (64 MB):"
                + " stripes averaging an eighth of it are copied whole (default: ${DEFAULT-VALUE})")
    long orcStripeSizeBytes;

    /** The generated table's properties for {@link #fileFormat}, refused when it names none. */
    java.util.Map<String, String> tableProperties() {
      String format = fileFormat.trim().toLowerCase(java.util.Locale.ROOT);
      if (!java.util.List.of("parquet", "orc", "avro").contains(format)) {
        throw new picocli.CommandLine.ParameterException(
            new picocli.CommandLine(this),
            "--file-format must be parquet, orc or avro, not '" + fileFormat + "'");
      }
      java.util.Map<String, String> properties = new java.util.TreeMap<>();
      properties.put(org.apache.iceberg.TableProperties.DEFAULT_FILE_FORMAT, format);
      if (orcStripeSizeBytes > 0) {
        properties.put(
            org.apache.iceberg.TableProperties.ORC_STRIPE_SIZE_BYTES,
            Long.toString(orcStripeSizeBytes));
      }
      return properties;
    }

    @Option(
        names = "--column-threads",
        split = ",",
        defaultValue = "1",
        converter = WholeNumber.Positive.class,
        description =
            "Threads each group's columnar copy uses for its columns, e.g. 1,2; a Lambda worker uses"
                + " its vCPUs this way (default: ${DEFAULT-VALUE})")
    List<Integer> columnThreads;

    @Option(
        names = "--prefetch",
        split = ",",
        defaultValue = "on",
        converter = PrefetchSetting.class,
        description =
            "Input prefetch settings to run: on, off or on,off (default: ${DEFAULT-VALUE})")
    List<String> prefetch;

    @Option(
        names = "--latency-ms",
        defaultValue = "0",
        converter = WholeNumber.NonNegativeLong.class,
        description =
            "Artificial delay of every read request, as object storage has (default: ${DEFAULT-VALUE})")
    long latencyMillis;

    @Option(
        names = "--sort-orders",
        split = ";",
        paramLabel = "ORDER",
        description =
            "Also time strategy=sort with each sort order, ';'-separated (e.g. 'customer_id;zorder(customer_id,"
                + " ordered_at)'): the same groups sorted on one thread, per --paths: GENERIC sorts rows as records, AUTO"
                + " as columns (default: none)")
    List<String> sortOrders = List.of();

    @Option(
        names = "--sort-heap-bytes",
        paramLabel = "BYTES",
        description =
            "With --sort-orders: the heap each group may sort in; a group of more than 1/40 of it in Parquet"
                + " bytes is sorted in runs spilled to java.io.tmpdir, and the row counts them (default: the whole heap)")
    long sortHeapBytes;
  }

  static final class PrefetchSetting extends OneOf {
    PrefetchSetting() {
      super("on", "off");
    }
  }
}
