/**
 * The sizes a run can hold, checked when a scenario is loaded so that an
 * oversized request gets one line naming the limit instead of a hang or an
 * out-of-memory abort minutes later. The README's "Limits" table lists them.
 */

/** Virtual time a run may last: one day. */
export const MAX_DURATION_MS = 86_400_000;
/** Any other time in a scenario (a start, an end, a step, a delay, a mean): no later than the longest run. */
export const MAX_TIME_MS = MAX_DURATION_MS;
/**
 * The smallest link latency: a message takes at least 1 us, so the
 * lockstep host's lookahead is never zero and no message loop stays at one instant.
 */
export const MIN_LATENCY_MS = 0.001;
/** An actor that throws is restarted no sooner than this, so a crash loop always lets time pass. */
export const MIN_RESTART_DELAY_MS = 1;
/** Consumer group members of a scenario, joins and replacements included. */
export const MAX_MEMBERS = 5_000;
/** Producers of a scenario. */
export const MAX_PRODUCERS = 1_000;
/** Actors of a scenario in all (members, producers, brokers, coordinators and `actors`). */
export const MAX_ACTORS = 10_000;
/** Partitions of one topic, and of all topics of a scenario together. */
export const MAX_PARTITIONS = 100_000;
/**
 * A group's members times the partitions they subscribe to: what an
 * assignment round costs in memory and history. 1,000 members on 9,000
 * partitions (9,000,000) run; 3,000 on 27,000 (81,000,000) exhausted a
 * 4 GB heap after 3 minutes.
 */
export const MAX_GROUP_COST = 20_000_000;
/** Worker threads of a lockstep or realtime run: each costs ~26 MB and ~146 memory mappings (vm.max_map_count is 65,530). */
export const MAX_WORKERS = 256;
/** Pool threads of a hunt. */
export const MAX_HUNT_WORKERS = 64;
/** A seed: a non-negative safe integer (seeds feed 53-bit arithmetic). */
export const MAX_SEED = Number.MAX_SAFE_INTEGER;
