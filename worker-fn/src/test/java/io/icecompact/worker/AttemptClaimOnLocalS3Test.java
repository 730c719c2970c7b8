package io.icecompact.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.io.CreateIfAbsent;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.testkit.FaultyS3;
import io.icecompact.testkit.LocalS3;
import io.icecompact.testkit.S3Fault;
import io.icecompact.testkit.S3FaultRule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.FileIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * A worker's attempt claim on S3 (s3proxy, which honours {@code If-None-Match: *} as S3 does):
 * overlapping attempts of one group never hold the same number, through S3FileIO and through
 * ResolvingFileIO alike.
 */
class AttemptClaimOnLocalS3Test {
  private static final String BUCKET = "work";
  private static LocalS3 s3;
  private static S3FileIO s3FileIO;
  private static FileIO resolving;

  @BeforeAll
  static void start() {
    s3 = new LocalS3();
    s3.createBucket(BUCKET);
    s3FileIO = new S3FileIO();
    s3FileIO.initialize(s3.icebergProperties());
    resolving =
        CatalogUtil.loadFileIO(
            "org.apache.iceberg.io.ResolvingFileIO",
            new HashMap<>(s3.icebergProperties()),
            new Configuration());
  }

  @AfterAll
  static void stop() {
    s3FileIO.close();
    resolving.close();
    s3.close();
  }

  @Test
  void claimsSkipATakenNumberAndLeaveItsMarkerAlone() {
    WorkLocation work = new WorkLocation("s3://" + BUCKET + "/_icecompact/job-seq");
    String taken = work.attemptMarker(0, 1);
    s3.client()
        .putObject(
            b -> b.bucket(BUCKET).key(taken.substring(("s3://" + BUCKET + "/").length())),
            RequestBody.fromString("earlier"));
    JobStore store = new JobStore(s3FileIO, S3CreateIfAbsent.forFileIO(s3FileIO));
    assertThat(store.claimAttempt(work, 0)).isEqualTo(2);
    assertThat(store.claimAttempt(work, 0)).isEqualTo(3);
    String stillThere =
        s3.client()
            .getObjectAsBytes(
                b -> b.bucket(BUCKET).key(taken.substring(("s3://" + BUCKET + "/").length())))
            .asUtf8String();
    assertThat(stillThere).isEqualTo("earlier");
  }

  @Test
  void s3AndLocalLocationsHaveAnAtomicCreateAndOtherSchemesDoNot() {
    CreateIfAbsent creates = S3CreateIfAbsent.forFileIO(s3FileIO);
    assertThat(creates.supports("s3://" + BUCKET + "/a/b")).isTrue();
    assertThat(creates.supports("s3a://" + BUCKET + "/a/b")).isTrue();
    assertThat(creates.supports("gs://bucket/a/b")).isFalse();
    CreateIfAbsent viaResolving = S3CreateIfAbsent.forFileIO(resolving);
    assertThat(viaResolving.supports("s3://" + BUCKET + "/a/b")).isTrue();
    assertThat(viaResolving.supports("file:/tmp/a/b")).isTrue();
  }

  /**
   * The first create of marker 1 lands but its answer is cut: the SDK retries it and S3 answers
   * 412. The marker holds this claim's token, so the claim keeps number 1 instead of skipping to 2.
   */
  @Test
  void aCreateWhoseAnswerWasLostAndWasRetriedKeepsItsNumber() {
    try (FaultyS3 faults = new FaultyS3(s3, 28L).start()) {
      S3FileIO io = new S3FileIO();
      io.initialize(faults.icebergProperties());
      try {
        faults.inject(
            S3FaultRule.of(S3Fault.resetMidResponse())
                .onMethod("PUT")
                .onKeys(".*/job-lost/attempts/.*")
                .times(1));
        WorkLocation work = new WorkLocation("s3://" + BUCKET + "/_icecompact/job-lost");
        JobStore store = new JobStore(io, S3CreateIfAbsent.forFileIO(io));
        assertThat(store.claimAttempt(work, 0)).isEqualTo(1);
        assertThat(faults.injected()).hasSize(1);
        // the next claim, another attempt, sees marker 1 as taken
        assertThat(store.claimAttempt(work, 0)).isEqualTo(2);
      } finally {
        io.close();
      }
    }
  }

  /**
   * 8 attempts of one group claim at once, 4 times each, all through S3: 32 distinct numbers. With
   * the old exists-then-write claim, the same race handed out the same numbers to several threads.
   *
   * <p>s3proxy answers 412 before reading a request's body and closes the connection, so the SDK
   * sometimes retries a create here: the race also exercises a retried create meeting another
   * claim's marker.
   */
  @Test
  void racingClaimsOfOneGroupNeverShareANumberThroughS3FileIO() throws Exception {
    WorkLocation work = new WorkLocation("s3://" + BUCKET + "/_icecompact/job-race");
    List<Integer> claimed =
        race(
            8,
            4,
            () ->
                new JobStore(s3FileIO, S3CreateIfAbsent.forFileIO(s3FileIO)).claimAttempt(work, 5));
    assertThat(claimed).doesNotHaveDuplicates().hasSize(32);
    // a retried create recognises its own marker, so no number is skipped
    assertThat(claimed).allMatch(n -> n >= 1 && n <= 32);
  }

  @Test
  void racingClaimsOfOneGroupNeverShareANumberThroughResolvingFileIO() throws Exception {
    WorkLocation work = new WorkLocation("s3://" + BUCKET + "/_icecompact/job-race-resolving");
    List<Integer> claimed =
        race(
            8,
            4,
            () ->
                new JobStore(resolving, S3CreateIfAbsent.forFileIO(resolving))
                    .claimAttempt(work, 5));
    assertThat(claimed).doesNotHaveDuplicates().hasSize(32);
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
}
