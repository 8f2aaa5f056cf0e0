import { partitionFor } from "@kcsim/protocol";
import { integerFlag, parseFlags } from "../parse-flags.js";
import { UsageError } from "../usage-error.js";

/** `kcsim partition-for <groupId> [--partitions N]`: prints the __consumer_offsets partition alone. */
export function partitionForCommand(argv: readonly string[]): number {
  const { values, positionals } = parseFlags("partition-for", argv, { partitions: { type: "string" } });
  if (positionals.length !== 1) throw new UsageError(`partition-for: expected exactly one group id, got ${positionals.length}`);
  const partitions = integerFlag("partition-for", "partitions", values.partitions, 1) ?? 50;
  process.stdout.write(`${partitionFor(positionals[0] as string, partitions)}\n`);
  return 0;
}
