import type { BrokerConfig, PlantedBugs } from "@kcsim/protocol";
import type { GroupTimers } from "./group-timers.js";

/** What handlers need besides the state: the broker settings, the member timers and the planted bugs (normally none). */
export interface CoordinatorEnv {
  readonly broker: BrokerConfig;
  readonly timers: GroupTimers;
  readonly bugs: PlantedBugs;
}
