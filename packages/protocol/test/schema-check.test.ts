import { Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { describe, expect, it } from "vitest";
import { deepestError, SchemaCheck } from "../src/index.js";

const Settings = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    partitions: Type.Integer({ minimum: 1 }),
    mode: Type.Optional(Type.Union([Type.Literal("eager"), Type.Literal("cooperative")])),
  },
  { additionalProperties: false },
);

const values: unknown[] = [
  { name: "orders", partitions: 3 },
  { name: "", partitions: 3 },
  { name: "orders", partitions: 0 },
  { name: "orders", partitions: 1.5, mode: "eager" },
  { name: "orders", partitions: 2, mode: "sticky" },
  { name: "orders", partitions: 2, extra: true },
  "not an object",
  null,
];

describe("SchemaCheck", () => {
  it("gives the compiled check's verdicts and deepest errors, interpreted at first and compiled later", () => {
    const compiled = TypeCompiler.Compile(Settings);
    const check = new SchemaCheck(Settings);
    // Three rounds: the first values are interpreted, the later ones go through the compiled check.
    for (let round = 0; round < 3; round++) {
      for (const value of values) {
        expect(check.Check(value)).toBe(compiled.Check(value));
        const ours = deepestError(check.Errors(value));
        const theirs = deepestError(compiled.Errors(value));
        expect(ours === undefined ? undefined : [ours.path, ours.message]).toEqual(
          theirs === undefined ? undefined : [theirs.path, theirs.message],
        );
      }
    }
  });
});
