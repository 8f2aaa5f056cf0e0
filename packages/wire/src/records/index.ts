export * from "./compression.js";
export * from "./control-record.js";
export * from "./crc32c.js";
export * from "./produce-records.js";
export * from "./record-batch.js";
export * from "./record-batch-codec.js";
