/**
 * A classic member id as Kafka's `ClassicGroup.generateMemberId` mints it:
 * `<client id>-<UUID>` for a dynamic member, `<instance id>-<UUID>` for a
 * static one, the UUID in Java's `UUID.randomUUID().toString()` form (a
 * version-4 UUID, 36 characters) drawn from the actor's seeded stream.
 */
export function generateClassicMemberId(prefix: string, random: () => number): string {
  const bytes = new Uint8Array(16);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Buffer.from(bytes).toString("hex");
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return `${prefix}-${uuid}`;
}
