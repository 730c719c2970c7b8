package io.icecompact.core.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class AbbreviatedTest {
  @Test
  void aShortListIsShownWhole() {
    assertThat(Abbreviated.list(List.of("a", "b"), 2)).isEqualTo("[a, b]");
  }

  @Test
  void aLongListShowsItsFirstNamesAndCountsTheRest() {
    List<String> files = IntStream.range(0, 1000).mapToObj(i -> "f" + i).toList();
    assertThat(Abbreviated.list(files)).isEqualTo("[f0, f1, f2, f3, f4, ... and 995 more]");
  }

  @Test
  void aLongTextIsCutAndSaysHowMuch() {
    assertThat(Abbreviated.text("abcdef", 6)).isEqualTo("abcdef");
    assertThat(Abbreviated.text("abcdefgh", 3)).isEqualTo("abc... (5 more characters)");
    assertThat(Abbreviated.text(null, 3)).isNull();
  }
}
