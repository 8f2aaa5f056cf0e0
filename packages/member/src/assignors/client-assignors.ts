import type { ConsumerPartitionAssignor } from "./consumer-partition-assignor.js";
import { RangeAssignor } from "./range-assignor.js";
import { RoundRobinAssignor } from "./round-robin-assignor.js";
import { CooperativeStickyAssignor } from "./sticky/cooperative-sticky-assignor.js";
import { StickyAssignor } from "./sticky/sticky-assignor.js";

/** The names `partition.assignment.strategy` accepts, as the assignors advertise them. */
export type ClientAssignorName = "range" | "roundrobin" | "sticky" | "cooperative-sticky";

/** A fresh built-in client assignor by its protocol name. */
export function clientAssignor(name: ClientAssignorName): ConsumerPartitionAssignor {
  switch (name) {
    case "range":
      return new RangeAssignor();
    case "roundrobin":
      return new RoundRobinAssignor();
    case "sticky":
      return new StickyAssignor();
    case "cooperative-sticky":
      return new CooperativeStickyAssignor();
  }
}
