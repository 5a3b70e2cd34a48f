// The stdio transport: JSON-RPC messages, one per line, in on stdin and out on stdout. It stands in for
// the SDK's StdioServerTransport, which cannot say whether an answer was written: here each call read
// gets an answer signal (answerSignal) that aborts when its answer cannot reach the client (stdout is
// closed, the call was cancelled, the process is stopping), so that the pipeline charges nothing or
// refunds. The end of input does not end the session at once: the client may still read stdout, so the
// calls read are answered first, and the transport closes once every answer is written or lost.
import type { Readable, Writable } from "node:stream";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CancelledNotificationSchema,
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";

export class AnsweringStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #buffer = new ReadBuffer();
  /** The calls read and not answered yet, by JSON-RPC id: what aborts each one's answer signal. */
  readonly #calls = new Map<RequestId, AbortController>();
  /** No more calls are taken: the input ended, stdout failed, or the process is stopping. */
  #ending = false;
  #closed = false;

  constructor(input: Readable = process.stdin, output: Writable = process.stdout) {
    this.#input = input;
    this.#output = output;
  }

  async start(): Promise<void> {
    this.#input.on("data", this.#read);
    this.#input.on("error", this.#inputFailed);
    this.#input.once("end", this.#inputEnded);
    // A closed stdout reports EPIPE here as well as to the write; unheard, it would end the process.
    this.#output.on("error", this.#outputFailed);
    if (this.#input.readableEnded) this.#inputEnded();
  }

  /** The signal of call `id`'s answer; a call this transport never read has none to wait for. */
  answerSignal(id: RequestId): AbortSignal {
    return this.#calls.get(id)?.signal ?? AbortSignal.abort();
  }

  /** Writes a message. An answer whose call is lost is not written; one that cannot be written is lost. */
  async send(message: JSONRPCMessage): Promise<void> {
    const id = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message) ? message.id : undefined;
    const call = id === undefined ? undefined : this.#calls.get(id);
    if (!call?.signal.aborted) {
      const written = await this.#write(serializeMessage(message));
      if (!written) call?.abort();
    }
    if (id !== undefined) this.#answered(id);
  }

  /**
   * Stops on a signal: the calls not answered yet are lost (not charged, or refunded), and the transport
   * closes once each of them has returned.
   */
  stop(): void {
    this.#end();
    for (const call of this.#calls.values()) call.abort();
    if (this.#calls.size === 0) this.#finish();
  }

  async close(): Promise<void> {
    this.stop();
    this.#finish();
  }

  #read = (chunk: Buffer): void => {
    if (this.#ending) return;
    try {
      this.#buffer.append(chunk);
    } catch (error) {
      this.#report(error);
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        this.#report(error);
        continue;
      }
      if (message === null) return;
      this.#take(message);
    }
  };

  #take(message: JSONRPCMessage): void {
    const cancelled = CancelledNotificationSchema.safeParse(message);
    if (cancelled.success) {
      // Kept from the SDK, which would then send nothing and leave the call pending here: the call's
      // answer is dropped as it comes instead, and its charge, if any, given back.
      const id = cancelled.data.params.requestId;
      if (id !== undefined) this.#calls.get(id)?.abort();
      return;
    }
    if (isJSONRPCRequest(message)) {
      if (this.#calls.has(message.id)) {
        // Two calls under one id could not be told apart: which answer was written, which charge to give back.
        const refusal = { code: ErrorCode.InvalidRequest, message: `Request id ${message.id} is already in use` };
        void this.#write(serializeMessage({ jsonrpc: "2.0", id: message.id, error: refusal }));
        return;
      }
      this.#calls.set(message.id, new AbortController());
    }
    this.onmessage?.(message);
  }

  /** Resolves true once `line` is handed to the pipe, false when it cannot be (stdout closed). */
  #write(line: string): Promise<boolean> {
    return new Promise((resolve) => {
      this.#output.write(line, (error) => {
        if (error) this.#outputFailed();
        resolve(!error);
      });
    });
  }

  #answered(id: RequestId): void {
    this.#calls.delete(id);
    if (this.#ending && this.#calls.size === 0) this.#finish();
  }

  #inputEnded = (): void => {
    this.#end();
    if (this.#calls.size === 0) this.#finish();
  };

  #inputFailed = (error: Error): void => {
    this.#report(error);
    this.#inputEnded();
  };

  /** Nothing more can be written: every answer still to come is lost, and the session ends. */
  #outputFailed = (): void => this.stop();

  #end(): void {
    if (this.#ending) return;
    this.#ending = true;
    this.#input.off("data", this.#read);
    this.#input.pause();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off("error", this.#inputFailed);
    this.#input.off("end", this.#inputEnded);
    this.onclose?.();
  }

  #report(error: unknown): void {
    this.onerror?.(error instanceof Error ? error : new Error(String(error)));
  }
}
