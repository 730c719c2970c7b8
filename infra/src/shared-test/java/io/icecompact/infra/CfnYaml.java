package io.icecompact.infra;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.AbstractConstruct;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Loads a CloudFormation/SAM YAML template with SnakeYAML, turning the short-form tags into their long
 * form: {@code !Ref X} becomes {@code {"Ref": "X"}}, {@code !Sub s} becomes {@code {"Fn::Sub": s}},
 * {@code !GetAtt A.B} becomes {@code {"Fn::GetAtt": ["A", "B"]}}, and so on. A test source of both infra and
 * infra/cdk (src/shared-test, added by build-helper-maven-plugin), hence public.
 */
public final class CfnYaml {
  private CfnYaml() {}

  @SuppressWarnings("unchecked")
  public static Map<String, Object> load(Path file) throws IOException {
    LoaderOptions options = new LoaderOptions();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return (Map<String, Object>) new Yaml(new CfnConstructor(options)).load(reader);
    }
  }

  private static final class CfnConstructor extends SafeConstructor {
    CfnConstructor(LoaderOptions options) {
      super(options);
      this.yamlMultiConstructors.put("!", new ShortForm());
    }

    private final class ShortForm extends AbstractConstruct {
      @Override
      public Object construct(Node node) {
        String tag = node.getTag().getValue().substring(1);
        String key = tag.equals("Ref") || tag.equals("Condition") ? tag : "Fn::" + tag;
        Object value;
        if (node instanceof ScalarNode scalar) {
          String text = constructScalar(scalar);
          value = tag.equals("GetAtt") ? java.util.List.of(text.split("\\.", 2)) : text;
        } else if (node instanceof SequenceNode sequence) {
          value = constructSequence(sequence);
        } else {
          value = constructMapping((MappingNode) node);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put(key, value);
        return result;
      }
    }
  }
}
