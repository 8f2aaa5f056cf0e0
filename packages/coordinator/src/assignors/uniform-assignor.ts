import { type ChangedAssignment, changesOf } from "./changed-assignments.js";
import type { GroupAssignment } from "./group-assignment.js";
import { type GroupSpec, subscriptionTypeOf } from "./group-spec.js";
import type { ServerAssignor } from "./server-assignor.js";
import type { SubscribedTopicDescriber } from "./subscribed-topic-describer.js";
import { UniformHeterogeneousAssignmentBuilder } from "./uniform-heterogeneous-assignment-builder.js";
import { UniformHomogeneousAssignmentBuilder } from "./uniform-homogeneous-assignment-builder.js";

/**
 * Kafka's server `uniform` assignor: the homogeneous builder when every
 * subscribed topic is subscribed by all members, the heterogeneous one
 * otherwise. Balance first, then stickiness.
 */
export class UniformAssignor implements ServerAssignor {
  readonly name = "uniform" as const;

  assign(spec: GroupSpec, topics: SubscribedTopicDescriber): GroupAssignment {
    if (spec.members.length === 0) return { members: [] };
    const type = spec.subscriptionType ?? subscriptionTypeOf(spec.members);
    return type === "homogeneous"
      ? new UniformHomogeneousAssignmentBuilder(spec, topics).build()
      : new UniformHeterogeneousAssignmentBuilder(spec, topics).build();
  }

  changes(spec: GroupSpec, topics: SubscribedTopicDescriber): readonly ChangedAssignment[] {
    if (spec.members.length === 0) return [];
    const type = spec.subscriptionType ?? subscriptionTypeOf(spec.members);
    return type === "homogeneous"
      ? new UniformHomogeneousAssignmentBuilder(spec, topics).changes()
      : changesOf(new UniformHeterogeneousAssignmentBuilder(spec, topics).build(), spec.members);
  }
}
