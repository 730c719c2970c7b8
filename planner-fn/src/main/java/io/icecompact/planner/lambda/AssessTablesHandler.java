package io.icecompact.planner.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.logging.InvocationLogContext;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import io.icecompact.lambda.LambdaStep;
import io.icecompact.planner.fleet.Deadline;
import io.icecompact.planner.fleet.FleetAssessor;
import io.icecompact.planner.fleet.SweepInput;
import io.icecompact.planner.fleet.SweepPlan;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lambda entry point of the sweep's {@code AssessTables} state: reads {@code {"sweep": <sweep
 * input>, "execution_name": "<the sweep's execution name>"}}, assesses every table of the sweep's
 * namespaces it has time for and returns the {@link SweepPlan} (its size bounded by {@code
 * max_tables} and {@link SweepPlan#PLAN_BYTES_MAX}). The assessment stops starting tables when the
 * invocation's remaining time, less {@link #safetyMargin}, has run out, and the plan says which
 * tables it left: a Lambda timeout would fail the whole sweep with an error nothing retries. A bad
 * sweep input or an unknown namespace is an {@link InvalidJobInputException} naming the field;
 * other errors are icecompact's typed exceptions, whose class names the state machine's Retry and
 * Catch match. The sweep's catalog is the deployment's ({@code CATALOG_PROPERTIES}) when it has
 * one: a sweep input that names another is refused ({@link DeploymentScope#catalogProperties}), and
 * the plan passes the deployed catalog to every compaction.
 */
public final class AssessTablesHandler extends LambdaStep<AssessTablesHandler.Input, SweepPlan> {
  private static final Logger LOG = LoggerFactory.getLogger(AssessTablesHandler.class);
  private static final Duration SAFETY_MARGIN = Duration.ofSeconds(60);

  /**
   * {@code sweep}: the sweep input ({@link SweepInput}); {@code execution_name}: the sweep's
   * execution name.
   */
  record Input(JsonNode sweep, String executionName) {}

  private final DeploymentScope scope;

  public AssessTablesHandler() {
    this(DeploymentScope.fromEnvironment());
  }

  public AssessTablesHandler(DeploymentScope scope) {
    super("AssessTables", Input.class);
    this.scope = scope;
  }

  @Override
  protected SweepPlan run(Input input, InvocationLogContext log, Context context) {
    Deadline deadline = deadline(context);
    JsonNode sweepInput = require("sweep", input.sweep());
    String name = require("execution_name", input.executionName());
    SweepInput requested = SweepInput.parse(sweepInput);
    SweepInput sweep =
        requested.withCatalogProperties(scope.catalogProperties(requested.catalogProperties()));
    try (TableAccess access = new TableAccess(sweep.catalogProperties())) {
      SweepPlan plan =
          SweepPlan.of(
              new FleetAssessor(access, sweep.careSteps())
                  .assess(sweep.namespaces(), deadline, name),
              sweep,
              name);
      // the sweep still succeeds: say in its log too that it covered less than asked
      if (plan.notAssessed().any()) {
        LOG.warn("Not every table was assessed: {}", plan.notAssessed().reason());
      }
      if (plan.notPlanned().count() > 0) {
        LOG.warn(
            "{} tables left out of the plan: {}",
            plan.notPlanned().count(),
            plan.notPlanned().reason());
      }
      return plan;
    }
  }

  /**
   * The invocation's remaining time less the safety margin; none without a context (tests, local
   * runs).
   */
  static Deadline deadline(Context context) {
    if (context == null) {
      return Deadline.none();
    }
    Duration remaining = Duration.ofMillis(context.getRemainingTimeInMillis());
    return Deadline.in(remaining.minus(safetyMargin(remaining)));
  }

  /**
   * Time kept for the table being assessed when the deadline passes and for writing the plan: a
   * minute, or a quarter of a shorter remaining time. Planning one table of 100k files took 7 s.
   */
  static Duration safetyMargin(Duration remaining) {
    Duration quarter = remaining.dividedBy(4);
    return quarter.compareTo(SAFETY_MARGIN) < 0 ? quarter : SAFETY_MARGIN;
  }
}
