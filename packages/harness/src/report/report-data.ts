import type { Micros } from "@kcsim/protocol";

/**
 * What the HTML report draws, extracted from a run's history in one pass:
 * plain, JSON-serialisable data (intervals and steps, never one entry per
 * history event), so a 300k-line history becomes a few thousand shapes.
 * Times are virtual microseconds, like the history's.
 */
export interface ReportData {
  readonly run: RunFacts;
  readonly groups: readonly GroupTimeline[];
  /** Consumer members, in the spec's order (else by name). */
  readonly members: readonly MemberTimeline[];
  /**
   * Actors that are not members (coordinators, brokers, producers) and had a process fault (crash, pause, clock step,
   * command) or trouble with a connection they opened: each gets a row in the fault lane.
   */
  readonly processes: readonly ProcessTimeline[];
  /** Connection mode: each client actor's connection trouble (breaks, resets, timeouts) and outages, members first. */
  readonly connections: readonly ConnectionTimeline[];
  /** Connection mode: what the connections did, per kind of client actor (consumer, producer, broker, ...). */
  readonly connectionStats: readonly ConnectionStats[];
  readonly faults: readonly FaultBand[];
  readonly timers: readonly TimerExpiry[];
  /** One row per subscribed partition, by group, then topic, then partition. */
  readonly ownership: readonly OwnershipRow[];
  /** The checker verdicts, in the summary's order; null when the run directory has no summary. */
  readonly checks: readonly CheckView[] | null;
  /** The summary's metrics (RunMetrics) as it holds them; null without a summary. */
  readonly metrics: unknown;
  /** Caveats the reader should know (e.g. fault windows inferred from the history). */
  readonly notes: readonly string[];
  /** Consumer lag and records consumed per second, per group, over time. */
  readonly progress: readonly GroupProgress[];
  /** The causal chain behind each violation, in violation order. */
  readonly explanations: readonly Explanation[];
}

/** One sample of a group's consumption: over [tUs - bucket, tUs). */
export interface ProgressSample {
  readonly tUs: Micros;
  /** Records handed to the group's applications per second of virtual time. */
  readonly recordsPerSecond: number;
  /** Records available but not yet consumed, summed over the group's partitions, at tUs (null: unknown). */
  readonly lag: number | null;
}

export interface GroupProgress {
  readonly groupId: string;
  /** How the log end was known: the synthetic sources' arrival rate, or the brokers' high watermarks. */
  readonly logEnd: "synthetic" | "high-watermark";
  readonly samples: readonly ProgressSample[];
}

/** One event of a causal chain, as the explanation panel lists and draws it. */
export interface ChainEvent {
  /** Index among the history's events, as checkers count (history.jsonl line index + 2). */
  readonly index: number;
  readonly tUs: Micros;
  /** The actor it belongs to (a send: its sender). */
  readonly actor: string;
  readonly kind: "send" | "obs" | "life" | "error" | "reject" | "lost" | "conn";
  readonly label: string;
  /** The event's fields (JSON), cut short. */
  readonly detail: string;
  /** Sends: the receiver, the fate and the arrival times (none when dropped or blocked). */
  readonly to?: string;
  readonly fate?: string;
  readonly arrivals?: readonly Micros[];
  readonly msgType?: string;
  /** Connection events (the actor is the client): what happened, to the connection with which server, and when a break was noticed. */
  readonly connection?: ChainConnection;
  /** Sends: the message itself (decoded frame, JSON), when a re-run fetched it. */
  readonly payload: string | null;
}

export interface ChainConnection {
  readonly what: string;
  readonly peer: string;
  /** A break: when the client and the server noticed it; null otherwise. */
  readonly noticedUs: readonly [Micros, Micros] | null;
}

/** A log line of an involved member in a chain's window (from a re-run). */
export interface ChainLogLine {
  readonly tUs: Micros;
  readonly actor: string;
  readonly level: string;
  readonly message: string;
  readonly fields: string;
}

/** The causal chain behind one violation: what the explanation panel shows. */
export interface Explanation {
  readonly number: number;
  readonly check: string;
  readonly tUs: Micros;
  readonly message: string;
  /** The window shown: from where the involved members' trouble began to just after the violation. */
  readonly fromUs: Micros;
  readonly toUs: Micros;
  /** The member actors the violation names (e.g. both owners of a partition). */
  readonly members: readonly string[];
  /** The partitions it names (`topic-partition`). */
  readonly partitions: readonly string[];
  /** Every actor with an event in the chain: the members, then their coordinator. */
  readonly actors: readonly string[];
  readonly events: readonly ChainEvent[];
  /** Events of the window left out (the chain keeps the latest ones). */
  readonly earlierEventsLeftOut: number;
  readonly logs: readonly ChainLogLine[];
  /** How payloads and log lines were fetched, or why not. */
  readonly enrichment: string;
}

export interface RunFacts {
  readonly scenario: string;
  readonly seed: number;
  readonly host: string | null;
  readonly historyHash: string | null;
  readonly replay: string | null;
  readonly historyEvents: number;
  readonly durationUs: Micros;
  /** Where fault windows and group topology came from: the run's spec, or inferred from the history alone. */
  readonly topologySource: "spec" | "history";
}

/** A half-open span of virtual time [fromUs, toUs). */
export interface TimeSpan {
  readonly fromUs: Micros;
  readonly toUs: Micros;
}

/** A span during which one member's application owned one partition (member.owned). */
export interface OwnershipInterval extends TimeSpan {
  readonly actor: string;
  /** Alive and not fenced (a live owner); false: a fenced zombie that still believes it owns the partition. */
  readonly live: boolean;
  /** The member epochs of the member.owned observations that held it, first and last. */
  readonly firstEpoch: number;
  readonly lastEpoch: number;
}

export interface OwnershipRow {
  readonly groupId: string;
  readonly topic: string;
  readonly partition: number;
  /** Sorted by start. */
  readonly intervals: readonly OwnershipInterval[];
  /** Spans with two or more live owners at once. */
  readonly conflicts: readonly TimeSpan[];
}

/** A member's client state (member.state) over a span. */
export interface StateSegment extends TimeSpan {
  readonly state: string;
  readonly memberEpoch: number;
}

/** A member as the coordinator held it (gc.member), over a span. */
export interface ServerSegment extends StateSegment {
  readonly memberId: string;
  readonly assigned: number;
  readonly pendingRevocation: number;
}

export type ProcessBandKind = "down" | "paused" | "app-paused";

/** A span an actor's process was down (crash, stop), paused whole, or had its application thread paused (pause-app). */
export interface ProcessBand extends TimeSpan {
  readonly kind: ProcessBandKind;
  readonly detail: string | null;
}

/** One process lifecycle event (life): start, crash, restart, pause, resume, clock-step, stop, command. */
export interface ProcessMark {
  readonly tUs: Micros;
  readonly what: string;
  readonly detail: string | null;
}

export interface ProcessTimeline {
  readonly actor: string;
  readonly bands: readonly ProcessBand[];
  /** Lifecycle events, the first start at time 0 left out. */
  readonly marks: readonly ProcessMark[];
}

export interface MemberTimeline {
  readonly actor: string;
  readonly groupId: string;
  readonly protocol: string | null;
  readonly states: readonly StateSegment[];
  readonly serverStates: readonly ServerSegment[];
  readonly process: ProcessTimeline;
}

/** The coordinator's view of a group (gc.group) over a span. */
export interface GroupSegment extends TimeSpan {
  readonly state: string;
  readonly groupEpoch: number;
  readonly assignmentEpoch: number;
  readonly members: number;
}

/** A new target assignment (gc.target). */
export interface TargetMark {
  readonly tUs: Micros;
  readonly assignmentEpoch: number;
  readonly assignor: string;
  readonly moved: number;
}

/** A step of a count over time: `count` from `tUs` until the next step. */
export interface CountStep {
  readonly tUs: Micros;
  readonly count: number;
}

export interface GroupTimeline {
  readonly groupId: string;
  readonly protocol: string | null;
  readonly partitions: number;
  readonly segments: readonly GroupSegment[];
  readonly targets: readonly TargetMark[];
  /** Partitions without a live owner, as steps. */
  readonly unowned: readonly CountStep[];
}

/** A message fault or a network partition: its window, and what it did to the messages sent in it. */
export interface FaultBand extends TimeSpan {
  readonly name: string;
  readonly kind: "message" | "partition";
  /** The window the spec declares; false: inferred from the first and last message the fault touched. */
  readonly declared: boolean;
  readonly detail: string;
  /** Messages the fault touched, by fate (deliver, drop, partitioned, broken; held: a partition held it back on its connection). */
  readonly affected: Readonly<Record<string, number>>;
}

/**
 * A member left the group or had it taken away: the coordinator removed it
 * (gc.member-removed: session-timeout, rebalance-timeout, leave, ...) or
 * its own max.poll.interval.ms expired (member.poll-timeout).
 */
export interface TimerExpiry {
  readonly tUs: Micros;
  readonly kind: string;
  readonly groupId: string;
  readonly memberId: string;
  /** The member actor that held this member id, if the history names it. */
  readonly actor: string | null;
  /** A timer expired (session, rebalance, join, sync or poll timeout), as opposed to a leave or a replacement. */
  readonly timeout: boolean;
  readonly memberEpoch: number | null;
  /** poll-timeout: when its poll timer last restarted before the expiry (the top of a pass of poll()'s loop). */
  readonly sinceUs: Micros | null;
}

/** A history event a violation names, as the report lists it. */
export interface ViolatingEvent {
  /** Index among the history's events (the header excluded), as checkers count. */
  readonly index: number;
  /** Line of history.jsonl (1-based, the header is line 1). */
  readonly line: number;
  /** Null when the history has no event at that index. */
  readonly tUs: Micros | null;
  readonly actor: string | null;
  /** The event's JSON line, cut short when long. */
  readonly text: string;
}

export interface ViolationView {
  /** 1-based, across all checks: the number its marker on the timeline carries. */
  readonly number: number;
  readonly check: string;
  readonly tUs: Micros;
  readonly message: string;
  readonly events: readonly ViolatingEvent[];
}

export interface CheckView {
  readonly name: string;
  readonly description: string;
  readonly ok: boolean;
  readonly violations: readonly ViolationView[];
}

/** What can go wrong with a client's connection, as the report marks it. */
export type ConnectionTrouble = "break" | "reset" | "close" | "connect-timeout";

/**
 * One thing that went wrong with a connection an actor opened (it is the
 * client): the router broke it (a fault: `reason` names it), the client
 * learned it was reset, refused or closed by the server (a reset that only
 * reports a break already marked is folded into that break), the client
 * closed it because a request timed out (close), or it was not accepted in
 * time (connect-timeout).
 */
export interface ConnectionMark {
  readonly tUs: Micros;
  readonly what: ConnectionTrouble;
  readonly peer: string;
  /** The connection's name ("" for the client's default connection to that server). */
  readonly connection: string;
  readonly gen: number;
  readonly reason: string | null;
  /** A break: when the client and the server noticed it. */
  readonly noticedUs: readonly [Micros, Micros] | null;
  /** A break: messages lost with the connection (sends the history records as broken on it, both ways). */
  readonly lost: number;
  /** When a connection to the same server (same name) was ready again; null: not before the run ended or the client went down. */
  readonly readyAgainUs: Micros | null;
}

/** A span one of an actor's connections was down: from the trouble that ended it to the next one that became ready. */
export interface ConnectionOutage extends TimeSpan {
  readonly peer: string;
  readonly connection: string;
  /** The trouble that began it and its reason. */
  readonly cause: ConnectionTrouble;
  readonly reason: string | null;
  /** Failed attempts (troubles) inside it after the first. */
  readonly failedAttempts: number;
  /** False: no connection was ready again before the run ended or the client went down. */
  readonly reconnected: boolean;
}

/** One client actor's connection trouble. */
export interface ConnectionTimeline {
  readonly actor: string;
  readonly marks: readonly ConnectionMark[];
  /** Sorted by start. */
  readonly outages: readonly ConnectionOutage[];
}

/** What the connections of one kind of client actor did over the run. */
export interface ConnectionStats {
  /** The actors' kind (from the spec; without one, their names without the number). */
  readonly kind: string;
  /** Actors of this kind that opened a connection. */
  readonly actors: number;
  /** Connect attempts. */
  readonly opened: number;
  /** Broken by a fault (the router). */
  readonly broken: number;
  /** Reset, refused or closed by the server, besides breaks. */
  readonly reset: number;
  /** Closed by the client because a request timed out. */
  readonly requestTimeouts: number;
  /** Not accepted within socket.connection.setup.timeout.ms. */
  readonly connectTimeouts: number;
  /** Messages lost with broken connections (both ways). */
  readonly messagesLost: number;
  /** The longest span one of them was down before a connection was ready again (null: none came back). */
  readonly longestOutageUs: Micros | null;
}
