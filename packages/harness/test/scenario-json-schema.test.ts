import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CONSUMER_CONFIG_DEF } from "@kcsim/protocol";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { loadScenarioFile, runScenario } from "../src/index.js";
import { SCENARIO_SCHEMA_PATH, scenarioJsonSchema, scenarioJsonSchemaText } from "../src/scenario/scenario-json-schema.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const shipped = JSON.parse(readFileSync(join(root, SCENARIO_SCHEMA_PATH), "utf8")) as Record<string, unknown>;
const scenarioFiles = readdirSync(join(root, "scenarios")).filter((f) => f.endsWith(".json"));

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);

/** Every property schema of every object in the schema, with its path ("groups[].consumer.session.timeout.ms"). */
function properties(node: unknown, path: string, out: [string, Node][] = []): [string, Node][] {
  if (Array.isArray(node)) {
    for (const item of node) properties(item, path, out);
    return out;
  }
  if (!isNode(node)) return out;
  if (isNode(node.properties))
    for (const [name, schema] of Object.entries(node.properties)) {
      out.push([`${path}.${name}`, schema as Node]);
      properties(schema, `${path}.${name}`, out);
    }
  if (node.items !== undefined) properties(node.items, `${path}[]`, out);
  if (Array.isArray(node.anyOf)) properties(node.anyOf, path, out);
  return out;
}

const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, keywords: [] });
const validate = ajv.compile(shipped);

describe("the scenario JSON Schema (schema/scenario.schema.json)", () => {
  it("is the one generated from the TypeBox schema the loader validates with (run `pnpm kcsim schema --out schema/scenario.schema.json`)", () => {
    expect(readFileSync(join(root, SCENARIO_SCHEMA_PATH), "utf8")).toBe(scenarioJsonSchemaText());
    expect(shipped.$schema).toBe("http://json-schema.org/draft-07/schema#");
  });

  it("describes every field, and every Kafka setting with its name, default and bounds", () => {
    const all = properties(scenarioJsonSchema(), "");
    expect(all.length).toBeGreaterThan(200);
    const undescribed = all.filter(([, schema]) => typeof schema.description !== "string" || schema.description.length < 10);
    expect(undescribed.map(([path]) => path)).toEqual([]);
    const session = all.find(([path]) => path === ".groups[].consumer.session.timeout.ms")?.[1];
    expect(session).toMatchObject({ type: "integer", default: 45000, minimum: 1 });
    expect(session?.description).toMatch(/Kafka setting session\.timeout\.ms \(int\); default 45000; at least 1\./);
    const assignors = all.find(([path]) => path === ".cluster.broker.group.consumer.assignors")?.[1];
    expect(assignors).toMatchObject({
      type: "array",
      items: { type: "string", enum: ["uniform", "range"] },
      default: ["uniform", "range"],
    });
    // Every consumer setting of the ConfigDef, and no other, in the group's and the member overrides' settings.
    for (const path of [".groups[].consumer", ".groups[].overrides[].consumer"]) {
      const settings = all.find(([p]) => p === path)?.[1];
      expect(Object.keys(settings?.properties as Node).sort(), path).toEqual(Object.keys(CONSUMER_CONFIG_DEF).sort());
      expect(settings?.additionalProperties, path).toBe(false);
    }
  });

  it.each(scenarioFiles)("accepts scenarios/%s", (file) => {
    const scenario = JSON.parse(readFileSync(join(root, "scenarios", file), "utf8")) as unknown;
    expect(validate(scenario) ? [] : validate.errors).toEqual([]);
  });

  it("rejects what the loader rejects: an unknown key, a probability above 1, a consumer setting that does not exist or is out of bounds", () => {
    const base = JSON.parse(readFileSync(join(root, "scenarios/m10-join.json"), "utf8")) as Node;
    const group = (base.groups as Node[])[0] as Node;
    const cases: Node[] = [
      { ...base, surprise: 1 },
      { ...base, faults: [{ name: "f", drop: { probability: 1.5 } }] },
      { ...base, groups: [{ ...group, consumer: { "session.timeout.mz": 45000 } }] },
      { ...base, groups: [{ ...group, consumer: { "max.poll.records": 0 } }] },
    ];
    for (const scenario of cases) expect(validate(scenario), JSON.stringify(scenario).slice(0, 120)).toBe(false);
  });

  it('runs a scenario that carries "$schema" (the default scenario, ping-pong)', async () => {
    const scenario = loadScenarioFile(join(root, "scenarios/ping-pong.json"));
    expect(scenario.$schema).toBe("../schema/scenario.schema.json");
    const { summary } = await runScenario(scenario, { host: "inline" });
    expect(Object.values(summary.checks).every((check) => check.ok)).toBe(true);
  });
});
