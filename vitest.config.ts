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
  },
});
