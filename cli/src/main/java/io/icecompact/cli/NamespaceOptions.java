package io.icecompact.cli;

import io.icecompact.cli.catalog.BoundedGlueClientFactory;
import io.icecompact.cli.flags.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The flags that name a catalog and the namespaces of a fleet, shared by {@code health} and {@code
 * sweep}.
 */
public final class NamespaceOptions {
  @Option(
      names = {"-c", "--catalog-property"},
      paramLabel = "KEY=VALUE",
      converter = KeyValue.Converter.class,
      description =
          "Iceberg catalog property (type or catalog-impl, uri, warehouse, io-impl, ...); repeatable")
  List<KeyValue> catalogProperties = new ArrayList<>();

  @Option(
      names = "--namespace",
      required = true,
      paramLabel = "NS",
      description = "Namespace whose tables are assessed, e.g. analytics; repeatable")
  List<String> namespaces = new ArrayList<>();

  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  /**
   * The catalog properties, Glue's calls bounded as for every command; a malformed one is a bad
   * flag.
   */
  Map<String, String> catalog() {
    try {
      return BoundedGlueClientFactory.withBoundedGlue(KeyValue.toMap(catalogProperties));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), "Invalid value for option '--catalog-property': " + e.getMessage());
    }
  }

  List<String> namespaces() {
    return namespaces;
  }
}
