/**
 * A small JSON-RPC client for the CLI's light read path (`market list`, the chain id behind the deployment file):
 * the retry policy of the viem clients (workflow/chain/rpc-fetch.ts: transient failures retried, one deadline per
 * request, the method named when it is missed) over node:http, loading neither viem nor fetch (undici): each costs
 * more than a bare `--version`.
 * Anything that sends a transaction or needs more than raw calls uses the viem clients (workflow/chain/clients.ts).
 */
import type { Address, Hex } from "viem";
import type { IncomingMessage, RequestOptions } from "node:http";
import { ChainError } from "../../workflow/chain/chain-error.js";
import {
  isTransientStatus,
  overdueRequest,
  retryRpc,
  transientRpcError,
  TransientRpcFailure,
  transportFailure,
  unreachableEndpoint,
} from "../../workflow/chain/rpc-fetch.js";
import { redactUrl } from "../../workflow/util/redact.js";

/** Calls in one HTTP request at most; public endpoints cap batches (often at 100). */
export const MAX_BATCH = 50;

/** Largest JSON-RPC response read (bytes): a hostile endpoint cannot fill memory. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export interface JsonRpcCall {
  method: string;
  params: unknown[];
}

interface JsonRpcReply {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

function isReply(value: unknown): value is JsonRpcReply {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function quantity(value: unknown, what: string): bigint {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(value))
    throw new ChainError("rpc", `the RPC endpoint answered ${what} with a malformed number`);
  return BigInt(value);
}

export class JsonRpcClient {
  private nextId = 1;
  private batching = true;
  /** Whether the endpoint has answered once. */
  private reached = false;
  private chainIdPromise?: Promise<number>;

  constructor(
    readonly rpcUrl: string,
    private readonly deadlineMs: number,
  ) {}

  /**
   * The calls in order, batched (an endpoint that answers a batch with anything but a list gets them one by one from
   * then on); a JSON-RPC error on any call fails them all with its message.
   */
  async batch(calls: readonly JsonRpcCall[]): Promise<unknown[]> {
    const results: unknown[] = [];
    const size = this.batching ? MAX_BATCH : 1;
    for (let at = 0; at < calls.length; at += size) {
      const chunk = calls.slice(at, at + size);
      const ids = chunk.map(() => this.nextId++);
      const body = chunk.map((c, i) => ({ jsonrpc: "2.0", id: ids[i], method: c.method, params: c.params }));
      const replies = await this.post(
        chunk.length === 1 ? body[0] : body,
        chunk.length === 1 ? chunk[0]?.method : undefined,
      );
      if (chunk.length > 1 && !Array.isArray(replies)) {
        this.batching = false;
        results.push(...(await this.batch(calls.slice(at))));
        return results;
      }
      const list = Array.isArray(replies) ? replies : [replies];
      const byId = new Map(list.filter(isReply).map((r) => [r.id, r]));
      chunk.forEach((call, i) => {
        const reply = byId.get(ids[i]);
        if (reply === undefined)
          throw new ChainError("rpc", `the RPC endpoint ${this.where()} left ${call.method} unanswered`);
        if (reply.error !== undefined) {
          const message = typeof reply.error.message === "string" ? reply.error.message.slice(0, 200) : "error";
          throw new ChainError(call.method === "eth_call" ? "revert" : "rpc", `${call.method}: ${message}`);
        }
        results.push(reply.result);
      });
    }
    return results;
  }

  async request(method: string, params: unknown[] = []): Promise<unknown> {
    const [result] = await this.batch([{ method, params }]);
    return result;
  }

  /** The chain id (asked once). */
  chainId(): Promise<number> {
    this.chainIdPromise ??= this.request("eth_chainId").then((id) => Number(quantity(id, "eth_chainId")));
    return this.chainIdPromise;
  }

  async blockNumber(): Promise<bigint> {
    return quantity(await this.request("eth_blockNumber"), "eth_blockNumber");
  }

  /** `eth_call`s of `data` to `to` at `block`, batched; each answer's return data. */
  async calls(to: Address, data: readonly Hex[], block: bigint): Promise<Hex[]> {
    const tag = `0x${block.toString(16)}`;
    const results = await this.batch(data.map((d) => ({ method: "eth_call", params: [{ to, data: d }, tag] })));
    return results.map((r) => {
      if (typeof r !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(r))
        throw new ChainError("rpc", "the RPC endpoint answered eth_call with malformed data");
      if (r === "0x") throw new ChainError("precondition", `no contract at ${to} (eth_call returned nothing)`);
      return r as Hex;
    });
  }

  private where(): string {
    return redactUrl(this.rpcUrl);
  }

  /** One JSON-RPC request (or batch) with retries under the deadline; the parsed reply. */
  private async post(body: unknown, method: string | undefined): Promise<unknown> {
    const deadline = AbortSignal.timeout(this.deadlineMs);
    const payload = JSON.stringify(body);
    try {
      const reply = await this.attempts(payload, method, deadline);
      this.reached = true;
      return reply;
    } catch (error) {
      // An endpoint that never answered is "cannot reach", as for the viem clients (workflow/chain/clients.ts).
      if (!this.reached && error instanceof ChainError && error.kind === "rpc")
        throw unreachableEndpoint(this.rpcUrl, error.message, error);
      throw error;
    }
  }

  private attempts(payload: string, method: string | undefined, deadline: AbortSignal): Promise<unknown> {
    return retryRpc(
      async () => {
        const { status, text } = await this.send(payload, deadline);
        if (isTransientStatus(status)) throw new TransientRpcFailure(`HTTP ${status}`);
        if (status < 200 || status > 299)
          throw new ChainError("rpc", `the RPC endpoint ${this.where()} answered HTTP ${status}`);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw new ChainError("rpc", `the RPC endpoint ${this.where()} answered something that is not JSON`);
        }
        const transient = transientRpcError(parsed);
        if (transient !== undefined) throw new TransientRpcFailure(transient);
        return parsed;
      },
      { deadline, overdue: () => overdueRequest(this.rpcUrl, method, this.deadlineMs) },
    );
  }

  /** One HTTP POST: the status and the body (at most MAX_RESPONSE_BYTES), or a TransientRpcFailure. */
  private send(payload: string, signal: AbortSignal): Promise<{ status: number; text: string }> {
    const url = new URL(this.rpcUrl);
    // getBuiltinModule, not import(): an ES import of node:http reads its lazy WebSocket exports, loading undici.
    const { request } =
      url.protocol === "https:" ? process.getBuiltinModule("node:https") : process.getBuiltinModule("node:http");
    const options: RequestOptions = {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      signal,
    };
    return new Promise((resolve, reject) => {
      const req = request(url, options, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy();
            reject(
              new ChainError("rpc", `the RPC endpoint ${this.where()} sent more than ${MAX_RESPONSE_BYTES} bytes`),
            );
            return;
          }
          chunks.push(chunk);
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", (error) => reject(transportFailure(error)));
      });
      req.on("error", (error) => reject(signal.aborted ? error : transportFailure(error)));
      req.end(payload);
    });
  }
}
