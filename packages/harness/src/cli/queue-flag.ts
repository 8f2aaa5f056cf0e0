import type { QueueAddress } from "../hunt/queue/redis-link.js";
import { UsageError } from "./usage-error.js";

/** `--queue redis://[:PASSWORD@]HOST[:PORT][/DB]` (or rediss:// for TLS): where the hunt's BullMQ queue lives; null when the flag is absent. */
export function queueFlag(command: string, value: string | undefined): QueueAddress | null {
  if (value === undefined) return null;
  const bad = (why: string) => new UsageError(`${command}: --queue must be redis://HOST:PORT[/DB], got '${value}' (${why})`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw bad("not a URL");
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") throw bad(`the scheme is ${url.protocol.replace(/:$/, "")}`);
  if (url.hostname === "") throw bad("no host");
  if (!/^(\/\d*)?$/.test(url.pathname)) throw bad("the database must be a number");
  if (url.search !== "" || url.hash !== "") throw bad("no query or fragment");
  const shown = new URL(url.href);
  if (shown.password !== "") shown.password = "***";
  return { url: url.href, shown: shown.href.replace(/\/$/, "") };
}
