#!/usr/bin/env node
/**
 * The kcsim command (bundle/cli.js): kcsim's V8 settings first, then the
 * CLI, which is loaded only once they are set (run/tune-v8.ts says why).
 */
import "../run/tune-v8.js";

await import("./main.js");
