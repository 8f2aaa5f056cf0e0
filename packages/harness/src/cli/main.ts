/**
 * The kcsim CLI as a script of the tsc build (`node dist/cli/main.js ...`,
 * as tests start it); the kcsim command itself starts from cli/launch.ts.
 */
import { runCli } from "./cli.js";

await runCli(process.argv.slice(2));
