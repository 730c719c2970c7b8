package io.icecompact.bench;

import io.icecompact.cli.IcecompactCli;
import io.icecompact.cli.flags.WholeNumber;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code bench scale}: metadata-only tables of each --files size, planner and committer in fresh
 * JVMs.
 */
@Command(
    name = "scale",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description =
        "Scale mode: build metadata-only tables of --files data files (v2, up to 1,000 day partitions)"
            + " and measure planning and committing them, each in a fresh JVM of --scale-heap; no data file is read"
            + " or written.")
final class ScaleCommand implements Callable<Integer> {
  @Option(
      names = "--files",
      split = ",",
      defaultValue = "100000,1000000",
      converter = WholeNumber.Positive.class,
      description =
          "The table sizes to build, in data files, e.g. 100000,1000000 (default: ${DEFAULT-VALUE})")
  List<Integer> files;

  @Option(
      names = "--scale-heap",
      defaultValue = "3g",
      converter = HeapSize.class,
      description =
          "The maximum heap (-Xmx) of the planner's and committer's fresh JVMs"
              + " (default: ${DEFAULT-VALUE})")
  String scaleHeap;

  @Mixin BenchOptions.Warehouse warehouse;
  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    boolean done =
        new ScaleBench(
                warehouse.base(),
                new ScaleBench.Settings(files, List.of("-Xmx" + scaleHeap)),
                out,
                err)
            .run();
    out.flush();
    if (!done) {
      err.println(
          "error: a step failed or the committed snapshot is not what the job meant (see the tables)");
      return IcecompactCli.EXIT_JOB_NOT_DONE;
    }
    return 0;
  }

  /** A JVM heap size as -Xmx takes it: a whole number with an optional k, m or g. */
  static final class HeapSize implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      if (!value.matches("[1-9][0-9]*[kKmMgG]?")) {
        throw new TypeConversionException(
            "'" + value + "' is not a heap size such as 3g, 512m or 3221225472");
      }
      return value;
    }
  }
}
