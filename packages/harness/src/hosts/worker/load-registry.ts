import { pathToFileURL } from "node:url";
import { DEFAULT_REGISTRY } from "../../actors/registry.js";
import type { ActorRegistry } from "../../kernel/actor-registry.js";

/**
 * The actor registry a worker builds its actors from. Workers cannot share
 * functions with the main thread, so a registry travels as the path of a
 * built module that exports `registry` (or `DEFAULT_REGISTRY`); absent = the
 * default registry. Tests and benchmarks use this for actors of their own.
 */
export async function loadRegistry(modulePath: string | null): Promise<ActorRegistry> {
  if (modulePath === null) return DEFAULT_REGISTRY;
  const module = (await import(pathToFileURL(modulePath).href)) as { registry?: unknown; DEFAULT_REGISTRY?: unknown };
  const registry = module.registry ?? module.DEFAULT_REGISTRY;
  if (!(registry instanceof Map)) throw new Error(`${modulePath} exports no actor registry (a Map named \`registry\`)`);
  return registry as ActorRegistry;
}
