package io.icecompact.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

class LocalS3Test {
  private static LocalS3 s3;

  @BeforeAll
  static void start() {
    s3 = new LocalS3();
    s3.createBucket("warehouse");
  }

  @AfterAll
  static void stop() {
    s3.close();
  }

  @Test
  void putAndGetThroughTheSdk() {
    S3Client client = s3.client();
    client.putObject(
        b -> b.bucket("warehouse").key("sdk/hello.txt"),
        RequestBody.fromString("hello, s3", StandardCharsets.UTF_8));

    assertThat(
            client.getObjectAsBytes(b -> b.bucket("warehouse").key("sdk/hello.txt")).asUtf8String())
        .isEqualTo("hello, s3");
    assertThat(
            client
                .getObjectAsBytes(
                    b -> b.bucket("warehouse").key("sdk/hello.txt").range("bytes=7-8"))
                .asUtf8String())
        .isEqualTo("s3");
    assertThat(client.listObjectsV2(b -> b.bucket("warehouse").prefix("sdk/")).contents())
        .extracting(o -> o.key(), o -> o.size())
        .containsExactly(org.assertj.core.groups.Tuple.tuple("sdk/hello.txt", 9L));
    assertThatThrownBy(() -> client.getObject(b -> b.bucket("warehouse").key("sdk/missing")))
        .isInstanceOf(NoSuchKeyException.class);
  }

  @Test
  void icebergS3FileIoWritesReadsSeeksListsAndDeletes() throws IOException {
    byte[] small = "iceberg over s3proxy".getBytes(StandardCharsets.UTF_8);
    // Over the 5 MB part size below, so S3FileIO uploads in parts (multipart upload).
    byte[] large = new byte[11 * 1024 * 1024 + 17];
    new Random(42).nextBytes(large);

    Map<String, String> properties = new HashMap<>(s3.icebergProperties());
    properties.put("s3.multipart.size", Integer.toString(5 * 1024 * 1024));
    try (S3FileIO io = new S3FileIO()) {
      io.initialize(properties);

      OutputFile smallOut = io.newOutputFile("s3://warehouse/db/t/data/small.bin");
      try (OutputStream out = smallOut.create()) {
        out.write(small);
      }
      OutputFile largeOut = io.newOutputFile("s3://warehouse/db/t/data/large.bin");
      try (OutputStream out = largeOut.createOrOverwrite()) {
        out.write(large);
      }

      InputFile smallIn = io.newInputFile("s3://warehouse/db/t/data/small.bin");
      assertThat(smallIn.exists()).isTrue();
      assertThat(smallIn.getLength()).isEqualTo(small.length);
      try (InputStream in = smallIn.newStream()) {
        assertThat(in.readAllBytes()).isEqualTo(small);
      }

      InputFile largeIn = io.newInputFile("s3://warehouse/db/t/data/large.bin");
      assertThat(largeIn.getLength()).isEqualTo(large.length);
      try (SeekableInputStream in = largeIn.newStream()) {
        in.seek(large.length - 100);
        byte[] tail = in.readNBytes(100);
        assertThat(tail)
            .isEqualTo(java.util.Arrays.copyOfRange(large, large.length - 100, large.length));
        in.seek(0);
        assertThat(in.readAllBytes()).isEqualTo(large);
      }

      assertThat(io.listPrefix("s3://warehouse/db/t/data/"))
          .extracting(FileInfo::location, FileInfo::size)
          .containsExactlyInAnyOrder(
              org.assertj.core.groups.Tuple.tuple(
                  "s3://warehouse/db/t/data/small.bin", (long) small.length),
              org.assertj.core.groups.Tuple.tuple(
                  "s3://warehouse/db/t/data/large.bin", (long) large.length));

      io.deleteFile("s3://warehouse/db/t/data/small.bin");
      assertThat(io.newInputFile("s3://warehouse/db/t/data/small.bin").exists()).isFalse();
      assertThatThrownBy(
              () -> {
                try (SeekableInputStream in =
                    io.newInputFile("s3://warehouse/db/t/data/small.bin").newStream()) {
                  in.read();
                }
              })
          .isInstanceOf(NotFoundException.class);
    }
    // What S3FileIO wrote is plain S3 to the SDK.
    assertThat(
            s3.client()
                .headObject(b -> b.bucket("warehouse").key("db/t/data/large.bin"))
                .contentLength())
        .isEqualTo(large.length);
  }

  @Test
  void icebergPropertiesNameTheEndpoint() {
    assertThat(s3.icebergProperties())
        .containsEntry("s3.endpoint", s3.endpoint().toString())
        .containsEntry("s3.path-style-access", "true")
        .containsEntry("client.region", "us-east-1")
        .containsEntry("http-client.type", "urlconnection")
        .containsEntry("s3.access-key-id", LocalS3.ACCESS_KEY_ID)
        .containsEntry("s3.secret-access-key", LocalS3.SECRET_ACCESS_KEY);
  }
}
