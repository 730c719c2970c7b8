package io.icecompact.infra.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cdklabs.cdknag.AwsSolutionsChecks;
import io.github.cdklabs.cdknag.NagPackProps;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.Aspects;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.assertions.Annotations;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.cxapi.SynthesisMessage;

/**
 * cdk-nag's AWS Solutions rules on the sample app's stack, with a table schedule, a sweep and an
 * alarm topic (every optional resource): no finding may be left unsuppressed, and each suppression
 * (AcceptedNagFindings) says why.
 */
class CdkNagTest {
  @Test
  void theAppStackHasNoUnsuppressedAwsSolutionsFinding() {
    Map<String, Object> context =
        new HashMap<>(
            Map.of(
                "warehouseBucket", "my-warehouse",
                "glueDatabase", "analytics",
                "table", "analytics.orders",
                "sweepNamespaces", "analytics",
                "alarmTopicArn", "arn:aws:sns:eu-west-1:123456789012:alarms",
                "repositoryRoot", StandInJars.create().toString()));
    App app =
        new App(
            AppProps.builder()
                .context(context)
                .outdir(ScratchDirs.create("nag-out").toString())
                .build());
    Stack stack = IcecompactApp.stack(app);
    AcceptedNagFindings.suppress(stack);
    Aspects.of(stack).add(new AwsSolutionsChecks(NagPackProps.builder().verbose(true).build()));
    Annotations annotations = Annotations.fromStack(stack);
    List<SynthesisMessage> findings = new java.util.ArrayList<>();
    findings.addAll(annotations.findError("*", Match.stringLikeRegexp("AwsSolutions-.*")));
    findings.addAll(annotations.findWarning("*", Match.stringLikeRegexp("AwsSolutions-.*")));
    assertThat(findings.stream().map(f -> f.getId() + ": " + f.getEntry().getData()).toList())
        .isEmpty();
  }
}
