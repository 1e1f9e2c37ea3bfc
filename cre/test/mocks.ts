/**
 * The SDK's own capability mocks (EvmMock, HttpActionsMock) wired to a TestMarket and its agents: Multicall3
 * aggregate3 answered from the market, HTTP requests routed to the agent functions, reports captured. Used by the
 * in-process unit tests and by the QuickJS host alike (same mocks for both).
 */
import { getNetwork } from "@chainlink/cre-sdk";
import { EvmMock, HttpActionsMock, REPORT_METADATA_HEADER_LENGTH } from "@chainlink/cre-sdk/test";
import { bytesToHex, decodeFunctionData, encodeFunctionResult, getAddress, toHex, zeroAddress, type Hex } from "viem";
import { decodeCreReport, type CreReport } from "../../workflow/chain/cre-report.js";
import { governanceReadAbi, identityReadAbi, marketReadAbi, multicall3Abi } from "../resolution/abi.js";
import { MULTICALL3_ADDRESS } from "../resolution/config.js";
import type { Agent, TestMarket } from "./agents.js";

export interface MockLog {
  chainReads: number;
  http: { method: string; url: string; body: string; cached: boolean }[];
  reports: { receiver: Hex; report: CreReport; raw: Hex }[];
}

const b64 = (bytes: Uint8Array): string => {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
};
const utf8 = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

export const CHAIN_SELECTOR_NAME = "ethereum-testnet-sepolia";

function answer(market: TestMarket, target: Hex, data: Hex): { success: boolean; returnData: Hex } {
  const fail = { success: false, returnData: "0x" as Hex };
  if (getAddress(target) === getAddress(market.market)) {
    const call = decodeFunctionData({ abi: marketReadAbi, data });
    if (call.functionName === "identityRegistry")
      return {
        success: true,
        returnData: encodeFunctionResult({
          abi: marketReadAbi,
          functionName: "identityRegistry",
          result: market.identityRegistry,
        }),
      };
    if (call.functionName === "governance")
      return market.governance === undefined
        ? fail
        : {
            success: true,
            returnData: encodeFunctionResult({
              abi: marketReadAbi,
              functionName: "governance",
              result: market.governance,
            }),
          };
    if (call.args[0] !== market.marketId) return fail;
    if (call.functionName === "getMarket") {
      const result = {
        creator: market.market,
        deadline: market.deadline,
        requestedAt: market.deadline + 1n,
        status: market.status,
        outcome: false,
        workerCount: market.seats.length,
        rewardPool: 10n ** 18n,
        totalStake: 0n,
        bundleHash: toHex(0, { size: 32 }),
        question: market.question,
        recordCount: BigInt(market.cutoff?.count ?? 0),
        recordHead: market.cutoff?.head ?? toHex(0, { size: 32 }),
      };
      return {
        success: true,
        returnData: encodeFunctionResult({ abi: marketReadAbi, functionName: "getMarket", result }),
      };
    }
    const ws = market.seats;
    return {
      success: true,
      returnData: encodeFunctionResult({
        abi: marketReadAbi,
        functionName: "getWorkers",
        result: [ws.map((w) => w.address), ws.map((w) => w.agentId), ws.map((w) => w.stake)],
      }),
    };
  }
  if (market.governance !== undefined && getAddress(target) === getAddress(market.governance)) {
    const call = decodeFunctionData({ abi: governanceReadAbi, data });
    const [arbiter] = call.args;
    const allowed = (market.allowedArbiters ?? []).some((a) => getAddress(a) === getAddress(arbiter));
    return {
      success: true,
      returnData: encodeFunctionResult({ abi: governanceReadAbi, functionName: "isArbiterAllowed", result: allowed }),
    };
  }
  if (getAddress(target) === getAddress(market.identityRegistry)) {
    const call = decodeFunctionData({ abi: identityReadAbi, data });
    const i = market.seats.findIndex((s) => s.agentId === call.args[0]);
    if (call.functionName !== "tokenURI") {
      // The agent's wallet (unset: zero) and owner (no owner: the call reverts), as the ERC-8004 registry answers.
      const signer = i < 0 ? undefined : market.signers?.[i];
      const found = call.functionName === "getAgentWallet" ? (signer?.wallet ?? zeroAddress) : signer?.owner;
      return found === undefined || i < 0
        ? fail
        : {
            success: true,
            returnData: encodeFunctionResult({ abi: identityReadAbi, functionName: call.functionName, result: found }),
          };
    }
    const uri = i < 0 ? undefined : market.tokenURIs[i];
    return uri === undefined
      ? fail
      : {
          success: true,
          returnData: encodeFunctionResult({ abi: identityReadAbi, functionName: "tokenURI", result: uri }),
        };
  }
  return fail;
}

/** Answers one contract call of a Multicall3 batch: from a TestMarket, or from a real chain's precomputed replies. */
export type CallSource = TestMarket | ((target: Hex, data: Hex) => { success: boolean; returnData: Hex });

/** Installs the mocks for this test (call inside the SDK's `test`). `agents` is keyed by URL host. */
export function installMocks(market: CallSource, agents: Map<string, Agent>): MockLog {
  const source = typeof market === "function" ? market : (target: Hex, data: Hex) => answer(market, target, data);
  const log: MockLog = { chainReads: 0, http: [], reports: [] };
  const selector = getNetwork({ chainFamily: "evm", chainSelectorName: CHAIN_SELECTOR_NAME })!.chainSelector.selector;
  const evm = EvmMock.testInstance(selector);
  evm.callContract = (input) => {
    log.chainReads++;
    const to = bytesToHex(input.call!.to);
    if (getAddress(to) !== MULTICALL3_ADDRESS) throw new Error(`unexpected direct call to ${to}`);
    const { args } = decodeFunctionData({ abi: multicall3Abi, data: bytesToHex(input.call!.data) });
    const results = args[0].map((c) => source(c.target, c.callData));
    const data = encodeFunctionResult({ abi: multicall3Abi, functionName: "aggregate3", result: results });
    return { data: b64(Uint8Array.from(Buffer.from(data.slice(2), "hex"))) };
  };
  evm.writeReport = (input) => {
    const raw = bytesToHex(input.report!.rawReport.slice(REPORT_METADATA_HEADER_LENGTH));
    log.reports.push({ receiver: bytesToHex(input.receiver), report: decodeCreReport(raw), raw });
    return { txStatus: "TX_STATUS_SUCCESS", txHash: b64(new Uint8Array(32).fill(0xab)) };
  };
  const http = HttpActionsMock.testInstance();
  http.sendRequest = (req) => {
    const url = new URL(req.url);
    const body = utf8(req.body);
    log.http.push({ method: req.method, url: req.url, body, cached: req.cacheSettings?.store === true });
    const agent = agents.get(url.host);
    if (agent === undefined) throw new Error(`connection refused: ${url.host}`);
    const reply = agent(`${url.pathname}${url.search}`, body === "" ? null : JSON.parse(body));
    return { statusCode: reply.status, headers: reply.headers, body: b64(new TextEncoder().encode(reply.body)) };
  };
  return log;
}
