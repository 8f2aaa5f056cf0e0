import { describe, expect, it } from "vitest";
import {
  BROKER_CONFIG_DEF,
  CONSUMER_CONFIG_DEF,
  ConfigError,
  defaultsOf,
  resolveBrokerConfig,
  resolveConsumerConfig,
  resolveProducerConfig,
} from "../src/index.js";

describe("configs", () => {
  it("carry Kafka's defaults", () => {
    const consumer = defaultsOf(CONSUMER_CONFIG_DEF);
    expect(consumer["session.timeout.ms"]).toBe(45000);
    expect(consumer["heartbeat.interval.ms"]).toBe(3000);
    expect(consumer["max.poll.interval.ms"]).toBe(300000);
    expect(consumer["max.poll.records"]).toBe(500);
    expect(consumer["group.protocol"]).toBe("classic");
    expect(consumer["partition.assignment.strategy"]).toEqual(["range", "cooperative-sticky"]);
    expect(consumer["auto.offset.reset"]).toBe("latest");
    expect(consumer["fetch.max.wait.ms"]).toBe(500);
    expect(consumer["fetch.max.bytes"]).toBe(52428800);
    expect(consumer["max.partition.fetch.bytes"]).toBe(1048576);
    const broker = defaultsOf(BROKER_CONFIG_DEF);
    expect(broker["group.consumer.session.timeout.ms"]).toBe(45000);
    expect(broker["group.consumer.heartbeat.interval.ms"]).toBe(5000);
    expect(broker["group.consumer.assignors"]).toEqual(["uniform", "range"]);
    expect(broker["group.initial.rebalance.delay.ms"]).toBe(3000);
    expect(broker["max.incremental.fetch.session.cache.slots"]).toBe(1000);
    expect(broker["fetch.max.bytes"]).toBe(57671680);
    expect(resolveProducerConfig({}).acks).toBe("all");
  });

  it("reject unknown names, wrong types and values out of bounds, naming the setting", () => {
    expect(() => resolveConsumerConfig({ "session.timeout": 1 })).toThrow(/unknown consumer config 'session.timeout'/);
    expect(() => resolveConsumerConfig({ "max.poll.records": 0 })).toThrow(/'max.poll.records' = 0 is below the minimum 1/);
    expect(() => resolveConsumerConfig({ "auto.offset.reset": "middle" })).toThrow(/not one of earliest, latest, none/);
    expect(() => resolveConsumerConfig({ "enable.auto.commit": "yes" })).toThrow(ConfigError);
    expect(() => resolveBrokerConfig({ "group.consumer.session.timeout.ms": 30000 })).toThrow(/within \[45000, 60000\]/);
    expect(() => resolveBrokerConfig({ "group.consumer.heartbeat.interval.ms": 20000 })).toThrow(/within \[5000, 15000\]/);
  });

  it("allow bounds to be widened the way Kafka allows (min/max settings)", () => {
    const broker = resolveBrokerConfig({
      "group.consumer.min.session.timeout.ms": 1000,
      "group.consumer.session.timeout.ms": 6000,
      "group.consumer.min.heartbeat.interval.ms": 500,
      "group.consumer.heartbeat.interval.ms": 1000,
    });
    expect(broker["group.consumer.session.timeout.ms"]).toBe(6000);
  });

  it("reject classic-only settings under group.protocol=consumer and the reverse", () => {
    expect(() => resolveConsumerConfig({ "group.protocol": "consumer", "session.timeout.ms": 10000 })).toThrow(
      /not supported with group.protocol=consumer/,
    );
    expect(() => resolveConsumerConfig({ "group.remote.assignor": "range" })).toThrow(/only supported with group.protocol=consumer/);
    expect(resolveConsumerConfig({ "group.protocol": "consumer", "group.remote.assignor": "range" })["group.remote.assignor"]).toBe(
      "range",
    );
  });
});
