package io.icecompact.core.job;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.OutsideDeploymentScopeException;
import org.junit.jupiter.api.Test;

/** Which work locations a stage takes as a job's of a table (a direct invocation may name any). */
class WorkLocationTest {
  private static final String TABLE_LOCATION = "s3://wh/prefix/db/orders";

  @Test
  void theLocationsOfGivesAreTaken() {
    String byDefault = WorkLocation.of(null, TABLE_LOCATION, "db.orders", "job-1").jobDirectory();
    String underBase =
        WorkLocation.of("s3://work/icecompact/", TABLE_LOCATION, "db.Orders", "job-1")
            .jobDirectory();
    for (String location : new String[] {byDefault, underBase, underBase + "/"}) {
      assertThatCode(
              () ->
                  WorkLocation.requireJobDirectory(location, TABLE_LOCATION, "db.Orders", "job-1"))
          .doesNotThrowAnyException();
      assertThatCode(() -> WorkLocation.requireJobDirectory(location, null, "db.orders", null))
          .doesNotThrowAnyException();
    }
  }

  @Test
  void anotherTablesFolderOrJobIsRefusedWithTheShapeNamed() {
    String[] refused = {
      "s3://wh/prefix/db/neighbour/metadata", // a neighbour's folder
      "s3://wh/prefix/db/neighbour/_icecompact/job-1", // another table's default work root
      "s3://work/icecompact/db.neighbour/job-1", // another table's base
      "s3://work/icecompact/db.orders/job-2", // another job
      "s3://work/icecompact/db.orders/job-1/../../db.neighbour/job-1",
    };
    for (String location : refused) {
      assertThatThrownBy(
              () ->
                  WorkLocation.requireJobDirectory(location, TABLE_LOCATION, "db.orders", "job-1"))
          .as(location)
          .isInstanceOf(OutsideDeploymentScopeException.class)
          .hasMessageContaining(location)
          .hasMessageContaining("<table location>/_icecompact/<job id>")
          .hasMessageContaining("nothing was written");
    }
    assertThatThrownBy(
            () ->
                WorkLocation.requireJobDirectory(
                    "s3://wh/prefix/db/neighbour/metadata", null, "db.orders", null))
        .isInstanceOf(OutsideDeploymentScopeException.class);
  }
}
