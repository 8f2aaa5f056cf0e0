import type { BrokerConfig } from "@kcsim/protocol";
import type { GroupTimers } from "./group-timers.js";

/** What handlers need besides the state: the broker settings and the member timers. */
export interface CoordinatorEnv {
  readonly broker: BrokerConfig;
  readonly timers: GroupTimers;
}
