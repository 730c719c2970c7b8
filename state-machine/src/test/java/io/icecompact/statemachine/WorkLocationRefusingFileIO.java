package io.icecompact.statemachine;

import io.icecompact.core.io.LocalFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.io.OutputFile;

/**
 * A local disk on which the work location of one table ({@link #REFUSED_TABLE_FOLDER}) cannot be
 * written, as a bucket policy would refuse it: that table's jobs fail in their planner, the other
 * tables' run. Named by {@code io-impl}, so it is built by Iceberg; the job directories it refused
 * are kept here for the test.
 */
public final class WorkLocationRefusingFileIO extends LocalFileIO {
  static final String REFUSED_TABLE_FOLDER = "/db/broken/";
  static final Set<String> REFUSED_JOBS = ConcurrentHashMap.newKeySet();

  private static final String WORK_FOLDER = "/_icecompact/";

  @Override
  public OutputFile newOutputFile(String location) {
    int work = location.indexOf(WORK_FOLDER);
    if (location.contains(REFUSED_TABLE_FOLDER) && work >= 0) {
      String rest = location.substring(work + WORK_FOLDER.length());
      REFUSED_JOBS.add(rest.substring(0, rest.indexOf('/')));
      throw new UncheckedIOException(new IOException("Access Denied: " + location));
    }
    return super.newOutputFile(location);
  }
}
