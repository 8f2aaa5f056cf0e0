import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { type PipelineReceiverConfig, type PipelineSenderConfig, runReceiver, runSender } from "./pipeline-roles.js";

/** A router-throughput pipeline end (bench only): a thin shell around pipeline-roles. */
const data = workerData as (PipelineSenderConfig | PipelineReceiverConfig) & { readonly acks: MessagePort };
if (parentPort === null) throw new Error("pipeline-worker must run in a worker thread");
const port = parentPort;
if (data.role === "sender") runSender(data, port, data.acks);
else runReceiver(port, data.acks, (count) => port.postMessage(count));
