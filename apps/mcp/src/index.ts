// What the HTTP app mounts at /mcp.
export { handleMcpRequest, type McpHttpOptions } from "./http.ts";
