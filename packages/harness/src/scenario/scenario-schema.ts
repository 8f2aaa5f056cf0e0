import { type Static, Type } from "@sinclair/typebox";

/**
 * The scenario file format (JSON). Times are milliseconds of virtual time.
 * Every object is closed (unknown keys are errors), so a typo in a fault or
 * a setting is reported instead of silently ignored.
 */
const Closed = { additionalProperties: false } as const;
const Ms = Type.Number({ minimum: 0 });
const Probability = Type.Number({ minimum: 0, maximum: 1 });
const Names = Type.Array(Type.String({ minLength: 1 }), { minItems: 1 });

export const DelaySchema = Type.Union([
  Type.Object({ dist: Type.Literal("fixed"), ms: Ms }, Closed),
  Type.Object({ dist: Type.Literal("uniform"), minMs: Ms, maxMs: Ms }, Closed),
  Type.Object({ dist: Type.Literal("normal"), meanMs: Ms, stddevMs: Ms }, Closed),
  Type.Object({ dist: Type.Literal("exponential"), meanMs: Ms }, Closed),
  Type.Object({ dist: Type.Literal("pareto"), scaleMs: Type.Number({ exclusiveMinimum: 0 }), shape: Type.Number({ exclusiveMinimum: 0 }) }, Closed),
]);

export const MessageFaultSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    from: Type.Optional(Names),
    to: Type.Optional(Names),
    types: Type.Optional(Names),
    startMs: Type.Optional(Ms),
    endMs: Type.Optional(Ms),
    drop: Type.Optional(
      Type.Union([
        Type.Object({ probability: Probability }, Closed),
        Type.Object(
          {
            gilbertElliott: Type.Object(
              { pGoodToBad: Probability, pBadToGood: Probability, lossInGood: Probability, lossInBad: Probability },
              Closed,
            ),
          },
          Closed,
        ),
      ]),
    ),
    delay: Type.Optional(DelaySchema),
    duplicate: Type.Optional(Type.Object({ probability: Probability, delay: Type.Optional(DelaySchema) }, Closed)),
    reorder: Type.Optional(Type.Object({ probability: Probability, delay: DelaySchema }, Closed)),
    bandwidth: Type.Optional(Type.Object({ bytesPerSecond: Type.Number({ exclusiveMinimum: 0 }) }, Closed)),
    corrupt: Type.Optional(Type.Object({ probability: Probability, mode: Type.Union([Type.Literal("truncate"), Type.Literal("garbage")]) }, Closed)),
  },
  Closed,
);

export const PartitionSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    a: Names,
    b: Names,
    direction: Type.Union([Type.Literal("two-way"), Type.Literal("a-to-b"), Type.Literal("b-to-a")]),
    startMs: Ms,
    endMs: Ms,
  },
  Closed,
);

export const NemesisStepSchema = Type.Object(
  {
    atMs: Ms,
    actor: Type.String({ minLength: 1 }),
    action: Type.Union([
      Type.Literal("crash"),
      Type.Literal("restart"),
      Type.Literal("pause"),
      Type.Literal("resume"),
      Type.Literal("clock-step"),
      Type.Literal("command"),
    ]),
    deltaMs: Type.Optional(Type.Number()),
    command: Type.Optional(Type.Object({ command: Type.String({ minLength: 1 }) }, { additionalProperties: true })),
  },
  Closed,
);

export const ActorSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, pattern: "^[A-Za-z0-9][A-Za-z0-9._:-]*$" }),
    kind: Type.String({ minLength: 1 }),
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    startAtMs: Type.Optional(Ms),
  },
  Closed,
);

export const ScenarioSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.String()),
    seed: Type.Optional(Type.Integer({ minimum: 0 })),
    durationMs: Type.Number({ exclusiveMinimum: 0 }),
    codec: Type.Optional(Type.Boolean()),
    network: Type.Optional(Type.Object({ minLatencyMs: Type.Number({ exclusiveMinimum: 0 }), latency: DelaySchema }, Closed)),
    restartPolicy: Type.Optional(
      Type.Union([
        Type.Object({ mode: Type.Literal("stop") }, Closed),
        Type.Object({ mode: Type.Literal("ignore") }, Closed),
        Type.Object({ mode: Type.Literal("restart"), delayMs: Ms }, Closed),
      ]),
    ),
    actors: Type.Array(ActorSchema, { minItems: 1 }),
    faults: Type.Optional(Type.Array(MessageFaultSchema)),
    partitions: Type.Optional(Type.Array(PartitionSchema)),
    nemesis: Type.Optional(Type.Array(NemesisStepSchema)),
    checkers: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  },
  Closed,
);

export type ScenarioFile = Static<typeof ScenarioSchema>;
