/**
 * A member id minted by the coordinator for a v0 join with an empty
 * MemberId (`Uuid.randomUuid().toString()`: 16 random bytes as 22
 * base64url characters), drawn from the actor's seeded stream.
 */
export function generateMemberId(random: () => number): string {
  for (;;) {
    const bytes = new Uint8Array(16);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
    bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
    bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
    const id = Buffer.from(bytes).toString("base64url");
    // Like Uuid.randomUuid(): never starts with '-'.
    if (!id.startsWith("-")) return id;
  }
}
