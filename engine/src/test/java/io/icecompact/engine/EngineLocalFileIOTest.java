package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.io.LocalFileIO;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Workers of one job create their first files in the same new folder at the same moment. */
class EngineLocalFileIOTest {
  @TempDir Path dir;

  @Test
  void concurrentFirstWritesIntoOneNewFolderAllSucceed() throws Exception {
    LocalFileIO io = new LocalFileIO();
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 30; round++) {
        Path folder = dir.resolve("job-" + round).resolve("results");
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Future<?>> writes = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          String location = folder.resolve("group-" + t + ".json").toString();
          writes.add(
              pool.submit(
                  () -> {
                    start.await();
                    try (OutputStream out = io.newOutputFile(location).createOrOverwrite()) {
                      out.write(42);
                    }
                    return null;
                  }));
        }
        for (Future<?> write : writes) {
          write.get();
        }
        try (var files = Files.list(folder)) {
          assertThat(files.count()).isEqualTo(threads);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
