export * from "./api-versions-answer.js";
export * from "./error-response.js";
export * from "./wire-server-connection.js";
