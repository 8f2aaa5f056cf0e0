export { RealtimeHost } from "./realtime-host.js";
export { replayRecording } from "./replay.js";
