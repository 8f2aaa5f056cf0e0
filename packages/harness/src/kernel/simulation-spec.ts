import type { ActorId, JsonValue, Micros } from "@kcsim/protocol";
import type { FaultPlan } from "../router/fault-plan.js";
import type { RestartPolicy } from "./actor-cell.js";
import type { ControlAction } from "./event.js";

/** One actor of a run: built from its kind's factory with a JSON config. */
export interface ActorSpec {
  readonly id: ActorId;
  readonly kind: string;
  readonly config: JsonValue;
  readonly startAtUs: Micros;
}

/** A process fault or command the harness applies to an actor at a time. */
export interface NemesisStep {
  readonly atUs: Micros;
  readonly actor: ActorId;
  readonly control: ControlAction;
}

/**
 * Everything a host needs to run a simulation, already resolved from a
 * scenario: the same spec and seed give the same history in every host.
 */
export interface SimulationSpec {
  readonly scenario: string;
  readonly seed: number;
  readonly durationUs: Micros;
  readonly actors: readonly ActorSpec[];
  readonly plan: FaultPlan;
  readonly nemesis: readonly NemesisStep[];
  /** Pass messages through the msgpack codec (copy semantics). Off only for benchmarks. */
  readonly useCodec: boolean;
  readonly restartPolicy: RestartPolicy;
}
