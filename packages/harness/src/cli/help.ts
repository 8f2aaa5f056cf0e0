/** `kcsim --help` */
export const HELP = `kcsim: break Kafka consumer-group protocols on purpose, reproducibly.

Usage: pnpm kcsim <command> [options]

Commands:
  run [scenario]              run a scenario (default: ${"scenarios/ping-pong.json"}) and judge it
      --seed N                the run seed (default: the scenario's, else 1)
      --host inline|lockstep  where actors run (default inline; lockstep = one worker thread per actor)
      --out DIR               write history.jsonl, summary.json and command.txt to DIR
      --json                  print one JSON object: seed, host, historyHash, checks, metrics
      --no-codec              pass message objects instead of msgpack frames (benchmarks only)
  partition-for <groupId>     the __consumer_offsets partition of a group (Kafka's Utils.abs(hashCode) % n)
      --partitions N          offsets.topic.num.partitions (default 50)
  assign                      run one assignor on a JSON group description and print the assignment
      --assignor NAME         uniform|range (KIP-848 server side), client-range|roundrobin|sticky|cooperative-sticky (classic)
      --input FILE            {"topics":[{"name","partitions"}], "members":[{"id","instanceId","subscriptions","owned","generation"}]}
  help, --help                this text

Exit codes: 0 ok, 1 a checker found a violation, 2 bad input.
`;
