import { RangeAssignor } from "./range-assignor.js";
import type { ServerAssignor, ServerAssignorName } from "./server-assignor.js";
import { UniformAssignor } from "./uniform-assignor.js";

/** The built-in server assignors in Kafka's default `group.consumer.assignors` order (the first is the default). */
export const SERVER_ASSIGNORS: readonly ServerAssignor[] = Object.freeze([new UniformAssignor(), new RangeAssignor()]);

/** The built-in assignor of that name, or undefined (the coordinator answers UNSUPPORTED_ASSIGNOR). */
export function serverAssignorNamed(name: string): ServerAssignor | undefined {
  return SERVER_ASSIGNORS.find((assignor) => assignor.name === (name as ServerAssignorName));
}
