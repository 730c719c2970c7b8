package io.icecompact.bench;

import io.icecompact.cli.IcecompactCli;
import io.icecompact.cli.flags.FormatVersion;
import io.icecompact.cli.flags.OneOf;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code bench e2e}: the whole job on Spark- or Flink-shaped tables; the runs use the largest
 * --threads value as workers.
 */
@Command(
    name = "e2e",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description =
        "End-to-end mode: build Spark-written streaming tables or Flink-written CDC tables (--sizes,"
            + " --format-versions) and time the whole compact job (plan, rewrite, commit) per --paths, in this JVM"
            + " and in a fresh one (with its CPU seconds and peak RSS).")
final class EndToEndCommand implements Callable<Integer> {
  @Option(
      names = "--sizes",
      split = ",",
      defaultValue = "S",
      converter = SizeName.class,
      description =
          "End-to-end table sizes: Spark-written S (30 days x 5 files x 10k rows, ~33 MB), M (30 x 40 x"
              + " 10k, ~264 MB) or DAYSxFILESxROWS; Flink-written CDC tables (bucket(4, id), 2 writers, equality and"
              + " position deletes): upsert (the issue's: 69 checkpoints, 552 data files, 37 MB, 1.33M equality-delete"
              + " keys), upsert-10x (690 checkpoints, 375 MB), changelog (-U/+U and -D, 65 checkpoints), upsert-s and"
              + " changelog-s (12 checkpoints, seconds to build) (default: ${DEFAULT-VALUE})")
  List<String> sizes;

  @Option(
      names = "--format-versions",
      split = ",",
      defaultValue = "2,3",
      converter = FormatVersion.class,
      description =
          "End-to-end format versions: 2 (position delete files) and/or 3 (deletion vectors; a CDC"
              + " table's equality deletes stay equality deletes) (default: ${DEFAULT-VALUE})")
  List<Integer> formatVersions;

  @Option(
      names = "--processes",
      split = ",",
      defaultValue = "warm,fresh",
      converter = ProcessKind.class,
      description =
          "End-to-end: 'warm' runs the job in this JVM after --warmups runs, 'fresh' runs"
              + " `icecompact compact` in a new JVM, which reports its CPU seconds and peak RSS at exit"
              + " (default: ${DEFAULT-VALUE})")
  List<String> processes;

  @Option(
      names = "--fresh-java-opts",
      defaultValue = "inherit",
      description =
          "End-to-end: JVM options of the fresh process; 'inherit' starts it as ./icecompact"
              + " started this one (its defaults or ICECOMPACT_JAVA_OPTS) (default: ${DEFAULT-VALUE})")
  String freshJavaOptions;

  @Option(
      names = "--codec",
      defaultValue = "zstd",
      converter = Codec.class,
      description =
          "End-to-end: codec of the Spark-written files, zstd (Iceberg's default) or snappy; CDC"
              + " tables are written with Iceberg's default, zstd (default: ${DEFAULT-VALUE})")
  CompressionCodecName codec;

  @Mixin BenchOptions.Paths paths;
  @Mixin BenchOptions.Threads threads;
  @Mixin BenchOptions.Warmups warmups;
  @Mixin BenchOptions.Warehouse warehouse;
  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    EndToEndBench.Settings settings =
        new EndToEndBench.Settings(
            sizes,
            formatVersions,
            paths.paths,
            threads.threads.stream().mapToInt(Integer::intValue).max().orElse(2),
            processes.contains("warm"),
            processes.contains("fresh"),
            warmups.warmups,
            freshJavaOptions(),
            codec);
    EndToEndBench bench = new EndToEndBench(warehouse.base(), settings, out, err);
    boolean rowsKept = bench.run();
    out.flush();
    if (!rowsKept) {
      err.println("error: a run changed the table's live rows (see 'live rows after')");
      return IcecompactCli.EXIT_JOB_NOT_DONE;
    }
    if (!bench.allJobsDone()) {
      err.println("error: a run's job did not succeed (see 'status')");
      return IcecompactCli.EXIT_JOB_NOT_DONE;
    }
    return 0;
  }

  /** 'inherit': this JVM's own options, so the fresh job starts as ./icecompact starts a user's. */
  private List<String> freshJavaOptions() {
    if (!"inherit".equals(freshJavaOptions.trim())) {
      return List.of(freshJavaOptions.trim().split("\\s+"));
    }
    return ManagementFactory.getRuntimeMXBean().getInputArguments();
  }

  static final class ProcessKind extends OneOf {
    ProcessKind() {
      super("warm", "fresh");
    }
  }

  /** The codecs the Spark-shaped tables are written with. */
  static final class Codec implements ITypeConverter<CompressionCodecName> {
    @Override
    public CompressionCodecName convert(String value) {
      return switch (value) {
        case "zstd" -> CompressionCodecName.ZSTD;
        case "snappy" -> CompressionCodecName.SNAPPY;
        default -> throw new TypeConversionException("'" + value + "' is not one of zstd, snappy");
      };
    }
  }

  /** An end-to-end size name, checked by the size it names. */
  static final class SizeName implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      try {
        return EndToEndBench.checkSize(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
