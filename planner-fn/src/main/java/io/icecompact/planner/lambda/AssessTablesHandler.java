package io.icecompact.planner.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.logging.InvocationLogContext;
import io.icecompact.core.table.TableAccess;
import io.icecompact.planner.fleet.FleetAssessor;
import io.icecompact.planner.fleet.SweepInput;
import io.icecompact.planner.fleet.SweepPlan;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Lambda entry point of the sweep's {@code AssessTables} state: reads
 * {@code {"sweep": <sweep input>, "execution_name": "<the sweep's execution name>"}}, assesses every
 * table of the sweep's namespaces and returns the {@link SweepPlan} (its size bounded by
 * {@code max_tables}). A bad sweep input or an unknown namespace is an {@link InvalidJobInputException}
 * naming the field; other errors are icecompact's typed exceptions, whose class names the state
 * machine's Retry and Catch match.
 */
public final class AssessTablesHandler implements RequestStreamHandler {

  @Override
  public void handleRequest(InputStream in, OutputStream out, Context context) throws IOException {
    InvocationLogContext.run(
        "AssessTables", context == null ? null : context.getAwsRequestId(), log -> assess(in, out));
  }

  private static void assess(InputStream in, OutputStream out) throws IOException {
    JsonNode input = JobJson.mapper().readTree(in);
    if (input == null || !input.isObject() || !input.has("sweep")) {
      throw new InvalidJobInputException("AssessTables input has no 'sweep'");
    }
    JsonNode executionName = input.get("execution_name");
    if (executionName == null || !executionName.isTextual() || executionName.asText().isBlank()) {
      throw new InvalidJobInputException("AssessTables input has no 'execution_name' (the sweep's execution name)");
    }
    SweepInput sweep = SweepInput.parse(input.get("sweep"));
    try (TableAccess access = new TableAccess(sweep.catalogProperties())) {
      SweepPlan plan =
          SweepPlan.of(new FleetAssessor(access, sweep.careSteps()).assess(sweep.namespaces()), sweep, executionName.asText());
      JobJson.mapper().writeValue(out, plan);
    }
  }
}
