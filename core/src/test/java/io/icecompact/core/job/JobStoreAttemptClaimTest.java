package io.icecompact.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.AttemptClaimException;
import io.icecompact.core.error.TransientException;
import io.icecompact.core.io.CreateIfAbsent;
import io.icecompact.core.io.LocalFileIO;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attempt numbers of one group: overlapping attempts (a Step Functions retry after a lost answer
 * starts while the first attempt still runs) must never hold the same number, since outputs are
 * named by it.
 */
class JobStoreAttemptClaimTest {
  @TempDir Path dir;

  @Test
  void claimsNumberAttemptsOneAfterAnother() {
    JobStore store = new JobStore(new LocalFileIO());
    WorkLocation work = new WorkLocation(dir.resolve("job-1").toString());
    assertThat(store.claimAttempt(work, 3)).isEqualTo(1);
    assertThat(store.claimAttempt(work, 3)).isEqualTo(2);
    assertThat(store.claimAttempt(work, 4)).isEqualTo(1);
    assertThat(Files.exists(Path.of(work.attemptMarker(3, 2)))).isTrue();
  }

  @Test
  void fileLocationsAreClaimedAtomicallyToo() {
    JobStore store = new JobStore(new LocalFileIO());
    WorkLocation work = new WorkLocation(dir.resolve("job-file").toUri().toString());
    assertThat(work.jobDirectory()).startsWith("file:");
    assertThat(store.claimAttempt(work, 0)).isEqualTo(1);
    assertThat(store.claimAttempt(work, 0)).isEqualTo(2);
  }

  /**
   * Many attempts of one group claim at once, each several times: every claim gets its own number.
   * With the old exists-then-write claim this failed on the first rounds (several threads saw the
   * same free marker).
   */
  @Test
  void racingClaimsOfOneGroupNeverShareANumberOnTheLocalDisk() throws Exception {
    WorkLocation work = new WorkLocation(dir.resolve("job-race").toString());
    List<Integer> claimed =
        race(16, 8, () -> new JobStore(new LocalFileIO()).claimAttempt(work, 7));
    assertThat(claimed).doesNotHaveDuplicates().hasSize(16 * 8);
    // CREATE_NEW never answers "taken" for a free name, so the numbers have no gaps either
    assertThat(claimed).allMatch(n -> n >= 1 && n <= 16 * 8);
  }

  @Test
  void aStorageWithoutAtomicCreateStillChecksThenWrites() {
    JobStore store = new JobStore(new LocalFileIO(), CreateIfAbsent.NONE);
    WorkLocation work = new WorkLocation(dir.resolve("job-plain").toString());
    assertThat(store.claimAttempt(work, 0)).isEqualTo(1);
    assertThat(store.claimAttempt(work, 0)).isEqualTo(2);
  }

  @Test
  void noFreeNumberIsATypedApplicationError() {
    CreateIfAbsent alwaysTaken = alwaysSupported((location, bytes) -> false);
    JobStore store = new JobStore(new LocalFileIO(), alwaysTaken);
    WorkLocation work = new WorkLocation(dir.resolve("job-full").toString());
    assertThatThrownBy(() -> store.claimAttempt(work, 2))
        .isInstanceOf(AttemptClaimException.class)
        .hasMessageContaining("Group 2")
        .hasMessageContaining("10000");
  }

  @Test
  void aStorageFailureWhileClaimingIsTypedTransientWhenTheEnvironmentFailed() {
    CreateIfAbsent timingOut =
        alwaysSupported(
            (location, bytes) -> {
              throw new UncheckedIOException(new SocketTimeoutException("read timed out"));
            });
    JobStore store = new JobStore(new LocalFileIO(), timingOut);
    WorkLocation work = new WorkLocation(dir.resolve("job-slow").toString());
    assertThatThrownBy(() -> store.claimAttempt(work, 0))
        .isInstanceOf(TransientException.class)
        .hasMessageContaining("Cannot create");
  }

  static List<Integer> race(int threads, int claimsPerThread, Callable<Integer> claim)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<List<Integer>>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(
            pool.submit(
                () -> {
                  go.await();
                  List<Integer> mine = new ArrayList<>();
                  for (int i = 0; i < claimsPerThread; i++) {
                    mine.add(claim.call());
                  }
                  return mine;
                }));
      }
      go.countDown();
      List<Integer> all = new ArrayList<>();
      for (Future<List<Integer>> future : futures) {
        all.addAll(future.get());
      }
      return all;
    } finally {
      pool.shutdownNow();
    }
  }

  private interface Create {
    boolean create(String location, byte[] bytes);
  }

  private static CreateIfAbsent alwaysSupported(Create create) {
    return new CreateIfAbsent() {
      @Override
      public boolean supports(String location) {
        return true;
      }

      @Override
      public boolean createIfAbsent(String location, byte[] bytes) {
        return create.create(location, bytes);
      }
    };
  }
}
