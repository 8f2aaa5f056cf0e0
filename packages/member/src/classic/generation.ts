/**
 * The classic member's place in its group (`AbstractCoordinator.Generation`):
 * the generation it joined, the member id the coordinator gave it, and the
 * protocol (assignor) the coordinator selected.
 */
export interface Generation {
  readonly generationId: number;
  readonly memberId: string;
  readonly protocolName: string | null;
}

/** `OffsetCommitRequest.DEFAULT_GENERATION_ID` / `JoinGroupRequest.UNKNOWN_MEMBER_ID`. */
export const NO_GENERATION: Generation = { generationId: -1, memberId: "", protocolName: null };

export function sameGeneration(a: Generation, b: Generation): boolean {
  return a.generationId === b.generationId && a.memberId === b.memberId && a.protocolName === b.protocolName;
}

/** The generation or member id was reset (`generation == NO_GENERATION.generationId || memberId == ""`). */
export function isGenerationReset(generation: Generation): boolean {
  return generation.generationId === NO_GENERATION.generationId || generation.memberId === NO_GENERATION.memberId;
}
