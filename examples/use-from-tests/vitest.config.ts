import { defineConfig } from "vitest/config";

// A project of its own: @kcsim/harness resolves to its built package (dist), as it would from the registry.
export default defineConfig({
  test: { include: ["*.test.ts"], testTimeout: 120_000 },
});
