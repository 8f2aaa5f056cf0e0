import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * @node-rs/crc32 (native code) is loaded at the first checksum, not with the
 * package (records/crc32c.ts): a child process imports the built package, so
 * no other test file of this worker has loaded it before it looks.
 */
describe("CRC-32C's native module", () => {
  it("is not loaded with the package, and is at the first checksum, which is Kafka's", () => {
    const wire = new URL("../dist/index.js", import.meta.url).href;
    const script = `
      import { createRequire } from "node:module";
      const cache = createRequire(import.meta.url).cache;
      const loaded = () => Object.keys(cache).some((path) => path.includes("@node-rs"));
      const { crc32c } = await import(${JSON.stringify(wire)});
      const atImport = loaded();
      const sum = crc32c(new TextEncoder().encode("123456789"));
      console.log(JSON.stringify({ atImport, afterChecksum: loaded(), sum }));
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    // 0xE3069283: CRC-32C's check value, the checksum of "123456789".
    expect(JSON.parse(out)).toEqual({ atImport: false, afterChecksum: true, sum: 0xe3069283 });
  });
});
