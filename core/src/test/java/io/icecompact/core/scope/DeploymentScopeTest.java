package io.icecompact.core.scope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.OutsideDeploymentScopeException;
import io.icecompact.core.job.JobSpec;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeploymentScopeTest {
  private final DeploymentScope scope =
      DeploymentScope.parse(
          "analytics.*, ops.audit", "s3://lake/warehouse/, s3://work/icecompact/jobs");

  @Test
  void tablesMatchPartByPart() {
    assertThatCode(() -> scope.checkTable("analytics.orders")).doesNotThrowAnyException();
    assertThatCode(() -> scope.checkTable("ops.audit")).doesNotThrowAnyException();
    assertThatThrownBy(() -> scope.checkTable("ops.payroll"))
        .isInstanceOf(OutsideDeploymentScopeException.class)
        .hasMessage(
            "Table 'ops.payroll' is outside this deployment's allowed tables [analytics.*, ops.audit]"
                + " (ALLOWED_TABLES); nothing was written");
    // a * is one part: a nested namespace is not inside analytics.*
    assertThatThrownBy(() -> scope.checkTable("analytics.private.salaries"))
        .isInstanceOf(OutsideDeploymentScopeException.class);
    assertThatThrownBy(() -> scope.checkTable("Analytics.orders"))
        .isInstanceOf(OutsideDeploymentScopeException.class);
  }

  @Test
  void locationsMustBeUnderAPrefixAtAFolderBoundary() {
    assertThatCode(
            () ->
                scope.checkLocation(
                    "work_location", "s3://work/icecompact/jobs/analytics.orders/job-1"))
        .doesNotThrowAnyException();
    assertThatCode(() -> scope.checkLocation("table location", "s3://lake/warehouse"))
        .doesNotThrowAnyException();
    assertThatThrownBy(
            () -> scope.checkLocation("work_location", "s3://work/icecompact/jobs-other/x"))
        .isInstanceOf(OutsideDeploymentScopeException.class)
        .hasMessageContaining(
            "The work_location 's3://work/icecompact/jobs-other/x' is outside this deployment's"
                + " allowed locations [s3://lake/warehouse/, s3://work/icecompact/jobs/] (ALLOWED_LOCATIONS)");
    assertThatThrownBy(() -> scope.checkLocation("work_location", "s3://lake/warehouse/../../etc"))
        .isInstanceOf(OutsideDeploymentScopeException.class)
        .hasMessageContaining("it has a '.' or '..' segment");
    // what Hadoop's S3A writes into table metadata is the same bucket
    assertThatCode(() -> scope.checkLocation("table location", "s3a://lake/warehouse/db/t"))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> scope.checkLocation("table location", "gs://lake/warehouse/db/t"))
        .isInstanceOf(OutsideDeploymentScopeException.class);
  }

  @Test
  void aJobIsCheckedOnItsTableAndItsWorkLocationWhenItNamesOne() {
    JobSpec inScope =
        new JobSpec("j", "analytics.orders", Map.of("type", "glue"), Map.of(), null, null, null);
    assertThatCode(() -> scope.check(inScope)).doesNotThrowAnyException();
    JobSpec elsewhere =
        new JobSpec(
            "j", "analytics.orders", Map.of("type", "glue"), Map.of(), null, null, "s3://other/w");
    assertThatThrownBy(() -> scope.check(elsewhere)).hasMessageContaining("'s3://other/w'");
  }

  @Test
  void unsetVariablesAllowEverythingAndMalformedEntriesFailAtStart() {
    DeploymentScope open = DeploymentScope.fromEnvironment(Map.of());
    assertThatCode(() -> open.checkTable("any.table")).doesNotThrowAnyException();
    assertThatCode(() -> open.checkLocation("work_location", "file:/tmp/x"))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> DeploymentScope.parse("orders", null))
        .hasMessage("ALLOWED_TABLES entry 'orders' is not namespace.table (a part may be *)");
    assertThatThrownBy(() -> DeploymentScope.parse(null, "bucket/prefix"))
        .hasMessage(
            "ALLOWED_LOCATIONS entry 'bucket/prefix' is not a location such as s3://bucket/prefix/");
  }

  @Test
  void containsDecidesAsCheckLocationDoes() {
    DeploymentScope scope = DeploymentScope.parse(null, "s3://ours/wh");
    assertThat(scope.contains("s3://ours/wh/db/t")).isTrue();
    assertThat(scope.contains("s3a://ours/wh/db/t/metadata/1.json")).isTrue();
    assertThat(scope.contains("s3://ours/wh-other/t")).as("a folder boundary").isFalse();
    assertThat(scope.contains("s3://ours/wh/../other/t")).as("a '..' segment").isFalse();
    assertThat(scope.contains("s3://finance/wh/t")).isFalse();
    assertThat(scope.contains(null)).isFalse();
    assertThat(DeploymentScope.unrestricted().contains("s3://anywhere/t")).isTrue();
    assertThat(DeploymentScope.unrestricted().contains(null)).isFalse();
  }
}
