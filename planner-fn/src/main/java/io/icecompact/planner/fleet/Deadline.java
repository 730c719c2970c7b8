package io.icecompact.planner.fleet;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * When a sweep's assessment must stop starting new work: in a Lambda, the invocation's remaining
 * time less a safety margin, so that the plan so far is returned instead of the invocation being
 * killed ({@code Sandbox.Timedout}, which the state machine cannot retry usefully). A clock, not
 * the Lambda context, so that the assessment is tested without AWS.
 */
public final class Deadline {
  private static final Deadline NONE = new Deadline(() -> 0L, Long.MAX_VALUE);

  private final LongSupplier clock;
  private final long atMillis;

  private Deadline(LongSupplier clock, long atMillis) {
    this.clock = clock;
    this.atMillis = atMillis;
  }

  /** Never passes (the CLI's sweep without {@code --assess-within}). */
  public static Deadline none() {
    return NONE;
  }

  /**
   * {@code budget} from now on {@code clock} (milliseconds); a negative budget has already passed.
   */
  public static Deadline in(Duration budget, LongSupplier clock) {
    long now = clock.getAsLong();
    long at = budget.toMillis() >= Long.MAX_VALUE - now ? Long.MAX_VALUE : now + budget.toMillis();
    return new Deadline(clock, at);
  }

  /** {@code budget} from now on the system clock. */
  public static Deadline in(Duration budget) {
    return in(budget, System::currentTimeMillis);
  }

  public boolean passed() {
    return atMillis != Long.MAX_VALUE && clock.getAsLong() >= atMillis;
  }

  public boolean isNone() {
    return atMillis == Long.MAX_VALUE;
  }

  @Override
  public String toString() {
    return isNone()
        ? "no deadline"
        : "deadline in " + Math.max(0, atMillis - clock.getAsLong()) + " ms";
  }
}
