package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ExitFiguresTest {
  @Test
  void theLineThisProcessPrintsParsesBackToItsOwnFigures() {
    ExitFigures figures = ExitFigures.parse(ExitFigures.line()).orElseThrow();

    // this JVM has run tests: some CPU time, and a resident set of tens of MB at least
    assertThat(figures.cpuSeconds()).isPositive();
    assertThat(figures.peakRssMb()).isGreaterThan(10);
  }

  @Test
  void readsTheFiguresItKnowsAndOnlyItsOwnLine() {
    assertThat(
            ExitFigures.parse(
                "icecompact-exit-figures: cpu-ns=2500000000 peak-rss-kb=409600 later=7"))
        .contains(new ExitFigures(2.5, 400.0));
    assertThat(
            ExitFigures.parse("icecompact-exit-figures: peak-rss-kb=1024")
                .orElseThrow()
                .cpuSeconds())
        .isNaN();
    assertThat(ExitFigures.parse("planned 3 groups")).isEmpty();
  }
}
