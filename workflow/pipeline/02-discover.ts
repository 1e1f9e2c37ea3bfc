/**
 * Stage 2 — discover: for every seat, agentId → tokenURI (AgentDirectory) → registration file
 * (decodeAgentUri with the safe fetcher) → endpoint (pickWorkerEndpoint, restricted to the protocols
 * we have adapters for). All seats concurrently. A seat whose registration is missing, malformed or
 * unusable gets a `discoveryFailure` and is a non-responder; nothing here throws.
 */
import type { MarketSnapshot, WorkerFailure, WorkerRecord, WorkerSeat } from "../core/types.js";
import { isHttpError } from "../http/errors.js";
import type { PipelinePorts, ResolutionConfig } from "../ports.js";
import { decodeAgentUri, isRegistrationError, pickWorkerEndpoint, type DecodeAgentUriOptions } from "../registration/index.js";
import { errorName } from "./errors.js";

export async function discoverStage(
  market: MarketSnapshot,
  ports: Pick<PipelinePorts, "directory" | "fetcher" | "adapters">,
  config: ResolutionConfig = {},
): Promise<WorkerRecord[]> {
  const options: DecodeAgentUriOptions = { fetcher: ports.fetcher };
  if (config.ipfsGateway !== undefined) options.ipfsGateway = config.ipfsGateway;
  if (config.registrationMaxBytes !== undefined) options.maxBytes = config.registrationMaxBytes;
  if (config.registrationTimeoutMs !== undefined) options.timeoutMs = config.registrationTimeoutMs;
  return Promise.all(market.workers.map((seat) => discoverOne(seat, ports, options)));
}

async function discoverOne(
  seat: WorkerSeat,
  ports: Pick<PipelinePorts, "directory" | "adapters">,
  options: DecodeAgentUriOptions,
): Promise<WorkerRecord> {
  let uri: string;
  try {
    uri = await ports.directory.agentURI(seat.agentId);
  } catch (error) {
    return { seat, discoveryFailure: { kind: "registration", message: `tokenURI(${seat.agentId}) could not be read (${errorName(error)})` } };
  }
  try {
    const file = await decodeAgentUri(uri, options);
    const endpoint = pickWorkerEndpoint(file, ports.adapters.protocols);
    return { seat, endpoint };
  } catch (error) {
    return { seat, discoveryFailure: discoveryFailure(error) };
  }
}

/**
 * Registration problems are "registration" failures, except a refused destination (the file or
 * its gateway pointed at an internal address), which keeps its own kind so it stands out.
 */
export function discoveryFailure(error: unknown): WorkerFailure {
  for (let e: unknown = error, i = 0; e !== undefined && e !== null && i < 8; e = (e as { cause?: unknown }).cause, i++) {
    if (isHttpError(e) && e.kind === "destination-refused") return { kind: "destination-refused", message: `registration file: ${e.message}` };
  }
  if (isRegistrationError(error)) return { kind: "registration", message: `${error.code}: ${error.message}` };
  return { kind: "registration", message: `registration could not be loaded (${errorName(error)})` };
}
