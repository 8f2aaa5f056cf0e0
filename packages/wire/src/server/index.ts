export * from "./api-versions-answer.js";
export * from "./wire-server-connection.js";
