import type { UniformSource } from "@kcsim/protocol";

/**
 * A client-generated member id (KIP-1082): a random version-4 UUID printed
 * as Kafka's `Uuid.toString()` does, 22 base64url characters without
 * padding. Like `Uuid.randomUuid()` it never starts with '-' (that would
 * read as a command-line flag). Drawn from the actor's seeded stream.
 */
export function generateMemberId(random: UniformSource): string {
  for (;;) {
    const bytes = new Uint8Array(16);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
    bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40; // version 4
    bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // IETF variant
    const id = Buffer.from(bytes).toString("base64url");
    if (!id.startsWith("-")) return id;
  }
}
