/**
 * How code loaded by requireWithCodeCache (run/code-cached-require.ts)
 * imports an ES module by URL or name (an actor registry, pino): Node 20
 * restores no dynamic-import callback for a script compiled from a code
 * cache that another process made, so the loaded file's own `import()`
 * would throw there; the loader's works. The loader and the loaded file
 * are two bundles with a copy of this module each, so the hook is a global.
 */
const IMPORT = Symbol.for("kcsim.importModule");

type Hooked = { [IMPORT]?: (url: string) => Promise<unknown> };

/** The loader: how the loaded code imports an ES module (the loader's own dynamic import). */
export function setImportModule(importModule: (url: string) => Promise<unknown>): void {
  (globalThis as Hooked)[IMPORT] = importModule;
}

/** An ES module by URL: through the loader's hook if there is one, else this module's own import(). */
export function importModule(url: string): Promise<unknown> {
  const hooked = (globalThis as Hooked)[IMPORT];
  return hooked !== undefined ? hooked(url) : import(url);
}
