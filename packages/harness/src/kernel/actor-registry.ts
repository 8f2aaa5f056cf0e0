import type { ActorFactory } from "@kcsim/protocol";

/** Actor kinds by name. Worker hosts import the same registry module to rebuild actors by (kind, config). */
export type ActorRegistry = ReadonlyMap<string, ActorFactory>;

export function factoryFor(registry: ActorRegistry, kind: string): ActorFactory {
  const factory = registry.get(kind);
  if (factory === undefined) throw new Error(`unknown actor kind '${kind}' (known: ${[...registry.keys()].join(", ")})`);
  return factory;
}
