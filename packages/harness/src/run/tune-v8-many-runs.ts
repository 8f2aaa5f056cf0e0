/**
 * Applies kcsim's V8 settings for a process that runs many seeds
 * (v8-tuning.ts) when imported, whatever the process's arguments: the
 * benchmark process (bench/main.ts) imports it first, as the kcsim command
 * imports tune-v8.ts, so that its in-process suites (the join storm, e2e,
 * the inline host) run under a hunt's settings before any of the
 * simulation's code is loaded.
 */
import { tuneV8 } from "./v8-tuning.js";

tuneV8(undefined);
