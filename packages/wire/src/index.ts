/**
 * @kcsim/wire: Kafka's binary protocol for the APIs real clients use to
 * produce, consume and run classic groups. See README.md.
 */
export * from "./apis/index.js";
export * from "./codec.js";
export * from "./framing/frame-splitter.js";
export * from "./header.js";
export * from "./io/reader.js";
export * from "./io/writer.js";
export * from "./mapping/index.js";
export * from "./records/index.js";
export * from "./schema/index.js";
export * from "./server/index.js";
export * from "./wire-error.js";
