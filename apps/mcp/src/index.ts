export { handleMcpRequest, type McpHttpOptions } from "./http.ts";
export { createMcpServer, type McpServerOptions } from "./server.ts";
export { type AgentTool, ALL_TOOLS, selectTools, TOOLSETS, UnknownToolsetError } from "./tools.ts";
