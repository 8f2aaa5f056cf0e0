import { actorExceptions } from "./actor-exceptions.js";
import type { Checker } from "./checker.js";
import { committedOffsetsMonotonic } from "./committed-offsets-monotonic.js";
import { contiguousOffsets } from "./contiguous-offsets.js";
import { contiguousOffsetsTransactional } from "./contiguous-offsets-transactional.js";
import { converges } from "./converges.js";
import { duplicatesAttributed } from "./duplicates-attributed.js";
import { duplicatesAttributedTransactional } from "./duplicates-attributed-transactional.js";
import { epochsMonotonic } from "./epochs-monotonic.js";
import { exactlyOnceOutput } from "./exactly-once-output.js";
import { noLoss } from "./no-loss.js";
import { noLossReadCommitted } from "./no-loss-read-committed.js";
import { noZombieCommits } from "./no-zombie-commits.js";
import { outputDuplicatesAttributed } from "./output-duplicates-attributed.js";
import { pingPongLiveness } from "./ping-pong-liveness.js";
import { pollExpiry } from "./poll-expiry.js";
import { revokeBeforeReassign } from "./revoke-before-reassign.js";
import { singleOwner } from "./single-owner.js";
import { sinkDuplicatesAttributed } from "./sink-duplicates-attributed.js";
import { sinkNoDuplicates } from "./sink-no-duplicates.js";
import { staticReplacementNoBump } from "./static-replacement-no-bump.js";

/** Checkers by name; a scenario lists the ones that judge it (default: actor-exceptions). */
export const CHECKERS: ReadonlyMap<string, Checker> = new Map(
  [
    actorExceptions,
    pingPongLiveness,
    revokeBeforeReassign,
    singleOwner,
    noZombieCommits,
    committedOffsetsMonotonic,
    epochsMonotonic,
    converges,
    pollExpiry,
    noLoss,
    contiguousOffsets,
    duplicatesAttributed,
    noLossReadCommitted,
    contiguousOffsetsTransactional,
    duplicatesAttributedTransactional,
    exactlyOnceOutput,
    outputDuplicatesAttributed,
    sinkNoDuplicates,
    sinkDuplicatesAttributed,
    staticReplacementNoBump,
  ].map((checker) => [checker.name, checker]),
);

export const DEFAULT_CHECKERS: readonly string[] = ["actor-exceptions"];

/** Ownership, commits, epochs, convergence and poll expiry (DESIGN.md rules 1, 2, 3, 4, 6, 7, 8): every group scenario's core. */
const MEMBERSHIP_CHECKERS: readonly string[] = [
  "actor-exceptions",
  "revoke-before-reassign",
  "single-owner",
  "no-zombie-commits",
  "committed-offsets-monotonic",
  "epochs-monotonic",
  "converges",
  "poll-expiry",
];

/** The group-protocol checkers every consumer-group scenario runs: the core plus consumption checks. */
export const GROUP_CHECKERS: readonly string[] = [
  ...MEMBERSHIP_CHECKERS,
  "contiguous-offsets",
  "duplicates-attributed",
  "static-replacement-no-bump",
];

/** The data-path checkers a scenario with producers adds. */
export const DATA_CHECKERS: readonly string[] = ["no-loss"];

/**
 * The checkers of a consume-process-produce scenario (rule 5 with
 * transactions): the group checkers with rewinds of rolled-back batches
 * explained, no loss among read_committed-visible records, and the output
 * accounted for against the input.
 */
export const EXACTLY_ONCE_CHECKERS: readonly string[] = [
  ...MEMBERSHIP_CHECKERS,
  "contiguous-offsets-transactional",
  "duplicates-attributed-transactional",
  "no-loss-read-committed",
  "exactly-once-output",
  "output-duplicates-attributed",
  "sink-duplicates-attributed",
];
