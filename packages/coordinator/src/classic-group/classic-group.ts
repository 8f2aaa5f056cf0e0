import type { ClassicGroupState } from "../observations.js";

/**
 * A classic group (JoinGroup/SyncGroup protocol, Kafka's `ClassicGroup`).
 * Classic membership comes in a later issue; for now the only classic
 * groups are Kafka's *simple* groups: created by an offset commit (or its
 * replay) for a group that does not exist, with no members, no protocol
 * type and no record of their own (generation 0, EMPTY).
 */
export class ClassicGroup {
  readonly protocol = "classic" as const;
  readonly groupId: string;
  readonly generationId = 0;
  readonly protocolType: string | null = null;

  constructor(groupId: string) {
    this.groupId = groupId;
  }

  get numMembers(): number {
    return 0;
  }

  state(): ClassicGroupState {
    return "EMPTY";
  }

  /** A simple group holds only committed offsets: a consumer group may take its place. */
  isSimpleGroup(): boolean {
    return this.protocolType === null && this.numMembers === 0;
  }
}
