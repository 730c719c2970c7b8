package io.icecompact.infra.cdk;

/** The checks of the construct's props: messages name the setting, the value seen and the rule. */
final class PropsCheck {
  private PropsCheck() {}

  static void range(String name, int value, int min, int max) {
    that(
        value >= min && value <= max,
        "'" + name + "' is set to " + value + " but must be between " + min + " and " + max);
  }

  static void that(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }
}
