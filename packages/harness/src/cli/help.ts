/** `kcsim --help` */
export const HELP = `kcsim: break Kafka consumer-group protocols on purpose, reproducibly.

Usage: pnpm kcsim <command> [options]

Commands:
  run [scenario]              run a scenario (default: ${"scenarios/ping-pong.json"}) and judge it
      --seed N                the run seed (default: the scenario's, else 1)
      --host inline|lockstep  where actors run (default inline; lockstep = one worker thread per actor)
      --host realtime         worker threads on the real clock; writes recording.jsonl to --out (see replay)
      --actors-per-worker N|auto  worker hosts: actors sharing one worker thread (default 1; auto = one worker per core, lockstep leaving one core to its main thread)
      --time-scale X          realtime: real seconds per virtual second (0.1: a 45 s timeout takes 4.5 s; below that, a loaded machine's delays rival the protocol's timers)
      --log-level L           actor logs (pino): silent|error|warn|info|debug|trace (default silent; to DIR/logs with --out)
      --protocol P            run every group under eager|cooperative|consumer, whatever the scenario says
      --consumer-config K=V   a consumer setting for every member, over the scenario's (repeatable)
      --actors MODULE         a built module exporting \`registry\` (a Map of actor kinds): custom actors on every host
      --out DIR               write history.jsonl, summary.json, command.txt and report.html to DIR
      --junit FILE            write the verdict as JUnit XML, one test case per checker (CI systems show it natively)
      --json                  print one JSON object: seed, host, historyHash, checks, metrics
      --no-codec              pass message objects instead of msgpack frames (benchmarks only)
  partition-for <groupId>     the __consumer_offsets partition of a group (Kafka's Utils.abs(hashCode) % n)
      --partitions N          offsets.topic.num.partitions (default 50)
  assign                      run one assignor on a JSON group description and print the assignment
      --assignor NAME         uniform|range (KIP-848 server side), client-range|roundrobin|sticky|cooperative-sticky (classic)
      --input FILE            {"topics":[{"name","partitions"}], "members":[{"id","instanceId","subscriptions","owned","generation"}]}
  replay <run-dir|recording>  re-run a realtime recording inline on its recorded schedule; compare each actor's messages
  replay <hunt-failure-dir>   re-run a hunt failure (scenario.json + hunt.json) with its seed; compare hash and verdict
      --json                  print the report as one JSON object (exit 1 if messages differ or a checker fails)
      --registry MODULE       a built module exporting the actor \`registry\` a recording's run used (never loaded from the recording itself)
      --out DIR               hunt failures: write the replayed run directory (history, report.html) to DIR
  compare <scenario>          run a scenario under eager, cooperative and the consumer protocol (same seed)
      --seed N                the run seed
      --json                  {"rows":[{"protocol","peakUnowned","unownedPartitionSeconds","rebalances","timeToStableMs","pausedMembers","rounds"}]}
  report <run-dir>            write report.html (ownership Gantt, states, epochs, faults, verdicts, metrics; every run --out writes one)
  hunt <scenario>|--swarm     run many seeds with a drawn fault schedule on all cores; report each failing seed
      --seeds A..B            the seeds to run (default 1..100); a list too (86,89..3000: what an interrupted hunt prints to resume)
      --swarm                 draw the group configuration too (protocol, assignor, static, timeouts, size)
      --swarm-data            draw a group that reads through the fetcher what drawn producers wrote to 3 brokers
      --swarm-migration       draw a group and replace some of its members by the other protocol's (online conversion)
      --as-written            run the scenario's own faults with each seed instead of drawing a schedule
      --protocol P            run every group under eager|cooperative|consumer
      --bug NAME              plant a named bug in every run (recorded in each failure's scenario.json "bugs")
      --consumer-config K=V   a consumer setting for every member (repeatable; kept in each failure's scenario.json)
      --list-bugs             list the planted bugs, one a line: name, what it breaks, the checker that catches it
      --workers N             pool size (default: one per core, and one per 4 seeds at most)
      --keep-going            run every seed instead of stopping at the first failure
      --out DIR               where failure directories go (default runs/hunt-<scenario>-A-B)
      --history               also write each failure's history.jsonl into its directory
      --shard I/N             run only every N-th seed from the I-th (N shards cover the seeds once; for CI matrices)
      --queue redis://H:P[/DB]  put one job per seed on a BullMQ queue for kcsim workers; report here as a local hunt
      --resume ID             with --queue: reattach to a hunt whose submitting command stopped (its id is printed at the start)
      --junit FILE            write the verdicts as JUnit XML, one test case per seed
      --json                  {"runs","failures":[{"seed","check","replay",...}],"findings":[{"check","events","roles","seeds"}],...}
  shrink <hunt-failure-dir>   reduce a failing run to a smaller scenario failing the same checker; writes shrunk.json
      --check NAME            the checker to keep failing (default: the first that failed)
      --max-trials N          stop after N trial runs
      --json                  print {"check","seed","original","shrunk","trials","file"}
  worker --queue redis://H:P[/DB]  run the jobs of queued hunts until SIGINT/SIGTERM (any number of machines)
      --workers N             pool size (default: one per core)
      --lock-ms MS            a killed worker's jobs go back to the queue after this long (default 30000)
  schema                      print the JSON Schema of scenario files (editor completion; schema/scenario.schema.json)
      --out FILE              write it to FILE instead
  serve [scenario]            the scenario's cluster (default: 3 brokers, topics auto-created) for real Kafka clients,
                              on the realtime host until SIGINT/SIGTERM; then the verdicts and the run directory
      --port N                broker i listens on 127.0.0.1:N+i (default 9092)
      --time-scale X          real seconds per virtual second (default 1: real clients' timeouts are real time)
      --seed N                the run seed (the router's draws)
      --out DIR               the run directory (default runs/serve-<scenario>): history, report.html, recording.jsonl
      --json                  print the summary as one JSON object when the run ends
  help, --help                this text
  help <command>              that command's part of it (also: <command> --help)

Exit codes: 0 every check passed, 1 a checker found a violation, 2 bad input (one line), 3 kcsim itself failed
(one line and the path of a file holding the stack); 130/143 a run or hunt ended by SIGINT/SIGTERM after saying what it finished.
`;

/** The last lines of HELP: what the exit codes mean. */
const EXIT_CODES = HELP.slice(HELP.indexOf("Exit codes:"));

/**
 * `kcsim <command> --help` (and `kcsim help <command>`): the command's own
 * lines of HELP (every entry of that name: replay has two) and the exit
 * codes; null for a name HELP does not list.
 */
export function commandHelp(command: string): string | null {
  const lines: string[] = [];
  let inEntry = false;
  for (const line of HELP.split("\n")) {
    // An entry starts at a command's name, two spaces in; its flags and continuation lines are indented further.
    if (/^ {2}\S/.test(line)) inEntry = line.slice(2).split(/[\s,]/)[0] === command;
    else if (!/^ {3,}\S/.test(line)) inEntry = false;
    if (inEntry) lines.push(line);
  }
  return lines.length === 0 ? null : `Usage: pnpm kcsim ${command} [options]\n\n${lines.join("\n")}\n\n${EXIT_CODES}`;
}
