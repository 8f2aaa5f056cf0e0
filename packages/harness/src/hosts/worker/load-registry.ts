import { pathToFileURL } from "node:url";
import { DEFAULT_REGISTRY } from "../../actors/registry.js";
import type { ActorRegistry } from "../../kernel/actor-registry.js";
import { importModule } from "../../run/import-module.js";

/**
 * The actor registry a worker builds its actors from. Workers cannot share
 * functions with the main thread, so a registry travels as the path of a
 * built module that exports `registry` (or `DEFAULT_REGISTRY`); absent = the
 * default registry. A module's kinds come next to kcsim's own, so it need
 * export only its own. Tests, benchmarks and users' actors use this.
 */
export async function loadRegistry(modulePath: string | null): Promise<ActorRegistry> {
  if (modulePath === null) return DEFAULT_REGISTRY;
  const module = (await importModule(pathToFileURL(modulePath).href)) as { registry?: unknown; DEFAULT_REGISTRY?: unknown };
  const registry = module.registry ?? module.DEFAULT_REGISTRY;
  if (!(registry instanceof Map)) throw new Error(`${modulePath} exports no actor registry (a Map named \`registry\`)`);
  return withDefaultActors(registry as ActorRegistry);
}

/** A user's actor kinds next to kcsim's own (a kind of the same name replaces kcsim's). */
export function withDefaultActors(registry: ActorRegistry): ActorRegistry {
  return new Map([...DEFAULT_REGISTRY, ...registry]);
}
