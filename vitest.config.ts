import { defineConfig } from "vitest/config";

// Workspace packages resolve to their TypeScript sources in tests (the
// "source" export condition); worker threads load the built dist instead.
export default defineConfig({
  resolve: { conditions: ["source"] },
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // The JSON report feeds the closing "N passed, N failed" line of .ci/run.
    reporters: ["default", ["json", { outputFile: ".vitest-report.json" }]],
  },
});
