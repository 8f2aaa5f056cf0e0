import type { Static, TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { Value, type ValueErrorIterator } from "@sinclair/typebox/value";

/** How many values a SchemaCheck interprets before it compiles its schema. */
const INTERPRETED_USES = 4;

/**
 * A validator for one schema that pays for compiling only when it is used
 * often. Compiling the scenario schema at module load cost about 40 ms of a
 * `kcsim run` that validates one file; the interpreter checks that file in
 * about 2 ms. A hunt or a fuzz run that validates thousands of values gets
 * the compiled check from the fifth value on. Both give the same verdicts
 * and the same errors: TypeBox's compiler and its value checker implement
 * one specification, and the compiled check reports errors through the
 * same ValueErrors walk.
 */
export class SchemaCheck<S extends TSchema> {
  readonly #schema: S;
  #uses = 0;
  #compiled: TypeCheck<S> | undefined;

  constructor(schema: S) {
    this.#schema = schema;
  }

  Check(value: unknown): value is Static<S> {
    const compiled = this.#compiledOnceUsedOften();
    return compiled === undefined ? Value.Check(this.#schema, value) : compiled.Check(value);
  }

  Errors(value: unknown): ValueErrorIterator {
    return this.#compiled === undefined ? Value.Errors(this.#schema, value) : this.#compiled.Errors(value);
  }

  #compiledOnceUsedOften(): TypeCheck<S> | undefined {
    if (this.#compiled === undefined && ++this.#uses > INTERPRETED_USES) this.#compiled = TypeCompiler.Compile(this.#schema);
    return this.#compiled;
  }
}
