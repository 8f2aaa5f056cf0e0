import { writeFileSync } from "node:fs";
import { relative } from "node:path";
import { scenarioJsonSchemaText } from "../../scenario/scenario-json-schema.js";
import { parseFlags } from "../parse-flags.js";
import { resolveUserPath, userCwd } from "../paths.js";
import { UsageError } from "../usage-error.js";

/** `kcsim schema [--out FILE]`: the JSON Schema of scenario files (to stdout, or to FILE). */
export function schemaCommand(argv: readonly string[]): number {
  const { values, positionals } = parseFlags("schema", argv, { out: { type: "string" } });
  if (positionals.length > 0) throw new UsageError(`schema: expected no arguments, got '${positionals[0]}'`);
  const text = scenarioJsonSchemaText();
  if (values.out === undefined) {
    // `kcsim schema | head` closes the pipe early: that ends the output, it is no error.
    process.stdout.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
    });
    process.stdout.write(text);
    return 0;
  }
  const file = resolveUserPath(values.out);
  writeFileSync(file, text);
  process.stdout.write(`wrote ${relative(userCwd(), file) || file}\n`);
  return 0;
}
