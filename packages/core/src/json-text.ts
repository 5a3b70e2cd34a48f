// Data that is JSON text already. A store returns it for pages too large to be worth building as
// objects (5,000 follower ids: the objects, their strings and the serialization of them cost a loaded
// server far more memory and time than SQLite writing the text). The /v1 envelope splices the text in
// as it is; whatever needs the objects (MCP's structuredContent) takes them back with plainData, and a
// JSON.stringify that meets one anywhere else still writes the right JSON through toJSON.
export class JsonText {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/** The data as plain values: JSON text parsed, anything else as it is. */
export function plainData(data: unknown): unknown {
  return data instanceof JsonText ? JSON.parse(data.text) : data;
}
