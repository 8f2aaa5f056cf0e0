import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * msgpackr is loaded at the codec's first encode or decode, not with the
 * package (codec.ts): a child process imports the built package, so no other
 * test file of this worker has loaded msgpackr before it looks.
 */
describe("the codec's msgpackr", () => {
  it("is not loaded with the package, and is at the first frame, which round-trips", () => {
    const protocol = new URL("../dist/index.js", import.meta.url).href;
    const script = `
      import { createRequire } from "node:module";
      const cache = createRequire(import.meta.url).cache;
      const loaded = () => Object.keys(cache).some((path) => path.includes("msgpackr"));
      const { encode, decode } = await import(${JSON.stringify(protocol)});
      const atImport = loaded();
      const ping = { type: "SimPing", seq: 2 ** 45, payload: "x" };
      const back = decode(encode(ping));
      console.log(JSON.stringify({ atImport, afterFrame: loaded(), back }));
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(JSON.parse(out)).toEqual({ atImport: false, afterFrame: true, back: { type: "SimPing", seq: 2 ** 45, payload: "x" } });
  });
});
