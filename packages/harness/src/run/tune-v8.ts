/**
 * Applies kcsim's V8 settings (v8-tuning.ts) when imported, those for the
 * command the process was started with (its first argument). The kcsim
 * command's entry (cli/launch.ts) imports it before it loads the CLI, and
 * so before any of the simulation's code: V8 gives each function its
 * optimization budget when it makes the function's closure, which for a
 * module's functions is when the module is linked, before any of its code
 * runs. Set from inside an already loaded bundle the settings save less
 * than half as much on a cold m10-join run (valgrind: -5% against -12%);
 * the benchmark process (bench/main.ts, one bundle) imports
 * tune-v8-many-runs.ts first all the same, and its compression suite puts
 * the settings on its children's command lines instead.
 */
import { tuneV8 } from "./v8-tuning.js";

tuneV8(process.argv[2]);
