package io.icecompact.statemachine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The payloads compaction.asl.json hands its Lambda states, built by hand for runs of the handlers
 * without the state machine (the deployed jars' pipeline test, the cold-start benchmark): each a
 * selection of the execution's state, as the definition's {@code Parameters} and {@code
 * ItemSelector} make it.
 */
public final class StatePayloads {
  private static final ObjectMapper JSON = new ObjectMapper();

  private StatePayloads() {}

  /** AcquireLease's payload: the execution input of a job on {@code table}, and its id. */
  public static ObjectNode acquireLease(
      String table, Map<String, String> catalog, String workLocation, List<String> care) {
    ObjectNode input = JSON.createObjectNode();
    input.put("table", table);
    input.set("catalog_properties", JSON.valueToTree(catalog));
    input.put("work_location", workLocation);
    if (!care.isEmpty()) {
      input.set("care", JSON.valueToTree(care));
    }
    ObjectNode payload = JSON.createObjectNode();
    payload.set("input", input);
    payload.put(
        "execution_id", "arn:aws:states:us-east-1:123456789012:execution:compaction:" + table);
    return payload;
  }

  /**
   * The Map's items for one job, as the definition's ItemSelector builds them ({@code lease}
   * included: the worker's heartbeat extends it).
   */
  public static List<JsonNode> mapItems(ObjectNode state) {
    JsonNode plan = state.get("plan");
    List<JsonNode> items = new ArrayList<>();
    for (JsonNode index : plan.get("group_indexes")) {
      ObjectNode item = JSON.createObjectNode();
      item.set("plan_ref", plan.get("plan_ref"));
      item.set("catalog_properties", state.get("job").get("catalog_properties"));
      item.set("group_index", index);
      item.set("lease", state.get("lease"));
      items.add(item);
    }
    return items;
  }

  /** RewriteGroup's payload for a Map item: {@code group} and {@code lease}, as its Parameters. */
  public static ObjectNode rewriteGroup(JsonNode item) {
    ObjectNode payload = JSON.createObjectNode();
    payload.set("group", item);
    payload.set("lease", item.get("lease"));
    return payload;
  }

  /** The fields {@code names} of {@code state}, as a state's Parameters select them. */
  public static ObjectNode select(ObjectNode state, String... names) {
    ObjectNode node = JSON.createObjectNode();
    for (String name : names) {
      node.set(name, state.get(name));
    }
    return node;
  }

  /** One payload per item. */
  public static <T> List<JsonNode> each(List<T> items, Function<T, JsonNode> payload) {
    return items.stream().map(payload).toList();
  }
}
