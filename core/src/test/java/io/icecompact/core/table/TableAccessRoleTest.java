package io.icecompact.core.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.table.TableSessionPolicy.Stage;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TableAccessRoleTest {
  @Test
  void theRoleComesFromTheEnvironmentAndUnsetOrBlankMeansNone() {
    assertThat(TableAccessRole.fromEnvironment(Map.of())).isEmpty();
    assertThat(TableAccessRole.fromEnvironment(Map.of("TABLE_ACCESS_ROLE_ARN", " "))).isEmpty();
    assertThat(
            TableAccessRole.fromEnvironment(
                Map.of("TABLE_ACCESS_ROLE_ARN", " arn:aws:iam::1:role/t ")))
        .contains(new TableAccessRole("arn:aws:iam::1:role/t", null));
  }

  @Test
  void withoutARoleTheAccessIsNotScoped() {
    // the embedded runner's and the CLI's behaviour: no TABLE_ACCESS_ROLE_ARN
    try (TableAccess access = new TableAccess(Map.of())) {
      assertThat(access.scopedToWorkLocation(Optional.empty(), "s3://b/work/db.t/j"))
          .isSameAs(access);
      assertThat(
              access.scopedFor(
                  Optional.empty(),
                  TableSessionPolicyTest.table(
                      "s3://b/wh/t", Map.of(), "s3://b/wh/t/metadata/v1.metadata.json"),
                  "s3://b/wh/t/_icecompact/j",
                  Stage.WORKER))
          .isSameAs(access);
    }
  }
}
