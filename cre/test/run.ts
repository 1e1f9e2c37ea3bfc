/** Runs the workflow's handler in-process on the SDK's test runtime (shared by the unit tests). */
import type { EVMLog } from "@chainlink/cre-sdk";
import { newTestRuntime } from "@chainlink/cre-sdk/test";
import { hexToBytes, pad, toHex } from "viem";
import { RESOLUTION_REQUESTED_TOPIC } from "../resolution/abi.js";
import { configSchema, type WorkflowConfig, type WorkflowConfigInput } from "../resolution/config.js";
import { initWorkflow, type ExecutionSummary } from "../resolution/workflow.js";
import { IDENTITY_ADDRESS, RECEIVER_ADDRESS, type TestMarket } from "./agents.js";
import { CHAIN_SELECTOR_NAME } from "./mocks.js";

export function testConfig(market: TestMarket, overrides: Partial<WorkflowConfigInput> = {}): WorkflowConfigInput {
  return {
    chainSelectorName: CHAIN_SELECTOR_NAME,
    chainId: market.chainId,
    marketAddress: market.market,
    receiverAddress: RECEIVER_ADDRESS,
    readAt: "latest",
    limits: { httpCalls: 20 },
    ...(market.identityRegistry !== IDENTITY_ADDRESS ? { identityRegistry: market.identityRegistry } : {}),
    ...overrides,
  };
}

/** The ResolutionRequested log of `market` (what the log trigger delivers). */
export function requestLog(market: TestMarket, emitter: `0x${string}` = market.market): EVMLog {
  return {
    address: hexToBytes(emitter),
    topics: [hexToBytes(RESOLUTION_REQUESTED_TOPIC), hexToBytes(pad(toHex(market.marketId), { size: 32 }))],
    data: new Uint8Array(0),
    txHash: new Uint8Array(32),
    blockHash: new Uint8Array(32),
    index: 0,
    removed: false,
    eventSig: hexToBytes(RESOLUTION_REQUESTED_TOPIC),
    txIndex: 0,
  } as unknown as EVMLog;
}

export async function runHandler(
  input: WorkflowConfigInput,
  log: EVMLog,
): Promise<{ summary: ExecutionSummary; config: WorkflowConfig }> {
  const config = configSchema.parse(input);
  const runtime = newTestRuntime(undefined, {}, config);
  const [entry] = initWorkflow(config);
  const out = await entry!.fn(runtime, log);
  return { summary: JSON.parse(out as string) as ExecutionSummary, config };
}
