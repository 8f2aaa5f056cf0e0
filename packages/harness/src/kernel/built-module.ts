import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The path of a built module next to the calling one. Worker threads on
 * Node 20 cannot load TypeScript, so when the caller itself runs from
 * `src/` (tests), the worker still starts from the compiled `dist/` twin.
 */
export function builtModule(relative: string, base: string): string {
  const path = fileURLToPath(new URL(relative, base));
  if (existsSync(path)) return path;
  const built = path.replace(/([\\/])src([\\/])/, "$1dist$2");
  if (existsSync(built)) return built;
  throw new Error(`cannot find ${relative} (looked at ${path} and ${built}); run \`pnpm build\` first`);
}
