/**
 * The scenario schema's cross-field rules (at least one effect, one outcome,
 * not both), spelt as JSON Schema keywords. zod's refinements check them at
 * load time but cannot be turned into JSON Schema; these go into the
 * schemas' `.meta()`, so an editor flags the same files the loader rejects.
 */

type JsonSchema = Record<string, unknown>;

/** The key is there and not `false`: how the loader counts an effect or a webhook fault as given. */
function given(key: string): JsonSchema {
  return { required: [key], properties: { [key]: { not: { const: false } } } };
}

export function atLeastOneGiven(keys: readonly string[]): JsonSchema {
  return { anyOf: keys.map(given) };
}

export function atMostOneGiven(keys: readonly string[]): JsonSchema {
  const pairs = keys.flatMap((first, index) => keys.slice(index + 1).map((second) => [first, second] as const));
  return { not: { anyOf: pairs.map(([first, second]) => ({ allOf: [given(first), given(second)] })) } };
}

/** Both objects are given with the same value at `field`, one of `values`. */
export function notSameValue(keys: readonly [string, string], field: string, values: readonly string[]): JsonSchema {
  const at = (value: string) => ({ required: [field], properties: { [field]: { const: value } } });
  return {
    not: {
      anyOf: values.map((value) => ({
        required: [...keys],
        properties: { [keys[0]]: at(value), [keys[1]]: at(value) },
      })),
    },
  };
}
