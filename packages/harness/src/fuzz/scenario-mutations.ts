/**
 * One-field mutations of a scenario, for the mutation fuzzer: every field
 * (object key or array element, at any depth) can be deleted or replaced by
 * one of a set of hostile values.
 */

/** The values a field is replaced with ("delete" removes it). */
export const MUTATIONS = ["delete", null, -1, 0, 1e9, 1e308, "x", [], {}, "__proto__"] as const;
export type Mutation = (typeof MUTATIONS)[number];

/** A path into a JSON value: keys and array indexes. */
export type FieldPath = readonly (string | number)[];

/** Every field of a JSON value, parents before children. */
export function fieldPaths(value: unknown, prefix: FieldPath = []): FieldPath[] {
  const out: FieldPath[] = [];
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      out.push([...prefix, i], ...fieldPaths(item, [...prefix, i]));
    });
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) out.push([...prefix, key], ...fieldPaths(item, [...prefix, key]));
  }
  return out;
}

/** The value with one field deleted or replaced (a deep copy; the input is untouched). */
export function mutate(value: unknown, path: FieldPath, mutation: Mutation): unknown {
  const copy = structuredClone(value);
  let parent: unknown = copy;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[key];
  const last = path[path.length - 1] as string | number;
  if (Array.isArray(parent)) {
    if (mutation === "delete") parent.splice(last as number, 1);
    else parent[last as number] = structuredClone(mutation);
  } else {
    const object = parent as Record<string, unknown>;
    if (mutation === "delete") delete object[last as string];
    // defineProperty: a "__proto__" key stays a key, as JSON.parse makes it.
    else Object.defineProperty(object, last, { value: structuredClone(mutation), enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** "groups[0].consumer.session.timeout.ms" style, for reports. */
export function describePath(path: FieldPath): string {
  return path.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? key : `.${key}`)).join("");
}
