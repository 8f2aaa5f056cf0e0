import { GroupStore } from "../groups/group-store.js";
import type { MetadataImage } from "../metadata/metadata-image.js";
import { OffsetStore } from "../offsets/offset-store.js";

/**
 * Everything a coordinator rebuilds from its log: the metadata image, the
 * groups and the committed offsets. Handlers read it; only record replay
 * changes it.
 */
export class CoordinatorState {
  readonly groups = new GroupStore();
  readonly offsets = new OffsetStore();

  constructor(readonly image: MetadataImage) {}
}
