import type { ScenarioFile } from "../scenario/scenario-schema.js";

/**
 * What `kcsim serve` runs without a scenario: three brokers (each also
 * hosting a group coordinator) and their controller, no topics at first.
 * Topics are created on first use, as Kafka's broker does by default
 * (auto.create.topics.enable), with num.partitions and
 * default.replication.factor from the broker settings (Kafka's defaults: 1
 * and 1). No faults: add them with a scenario of your own.
 */
export const DEFAULT_SERVE_SCENARIO: ScenarioFile = {
  name: "serve",
  description: "kcsim serve's default cluster: three brokers with group coordinators, topics auto-created on first use.",
  durationMs: 86_400_000,
  cluster: { coordinators: 3, brokers: 3, topics: [] },
};
