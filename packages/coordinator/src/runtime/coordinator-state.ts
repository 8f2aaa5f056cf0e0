import { GroupStore } from "../groups/group-store.js";
import type { MetadataImage } from "../metadata/metadata-image.js";
import { OffsetStore } from "../offsets/offset-store.js";
import { TransactionalProducers } from "../offsets/transactional-producers.js";

/**
 * Everything a coordinator rebuilds from its log: the metadata image, the
 * groups, the committed and pending transactional offsets, and the
 * transactional producers' epochs. Handlers read it; only record replay
 * changes it. `offsetsTopicPartitions` places groups on `__consumer_offsets`
 * partitions (a transaction marker applies to the groups of its partition).
 */
export class CoordinatorState {
  readonly groups = new GroupStore();
  readonly offsets = new OffsetStore();
  readonly producers = new TransactionalProducers();

  constructor(
    readonly image: MetadataImage,
    readonly offsetsTopicPartitions: number,
  ) {}
}
