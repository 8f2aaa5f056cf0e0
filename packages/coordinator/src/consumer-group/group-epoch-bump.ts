import { groupEpochRecord, partitionMetadataRecord } from "../records/consumer-group-records.js";
import type { WriteOp } from "../runtime/write-op.js";
import type { ConsumerGroup } from "./consumer-group.js";
import { computeSubscriptionMetadata, sameSubscriptionMetadata } from "./subscription-metadata.js";

/**
 * Spec 1.3 step 5: when the epoch must move (a new subscription) or a
 * metadata refresh is due, recompute the subscription metadata; new
 * metadata is written and also bumps the epoch; a bump writes the group
 * epoch + 1.
 */
export function maybeBumpGroupEpoch(op: WriteOp, group: ConsumerGroup, bumpGroupEpoch: boolean): void {
  if (!bumpGroupEpoch && group.metadataRefreshedAtEpoch === group.groupEpoch) return;
  let bump = bumpGroupEpoch;
  const metadata = computeSubscriptionMetadata(group.subscribedTopicNames().keys(), op.state.image);
  if (!sameSubscriptionMetadata(metadata, group.subscriptionMetadata)) {
    op.append(partitionMetadataRecord(group.groupId, metadata));
    bump = true;
  }
  if (bump) op.append(groupEpochRecord(group.groupId, group.groupEpoch + 1));
  group.metadataRefreshedAtEpoch = group.groupEpoch;
}
