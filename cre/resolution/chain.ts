/**
 * The market read through the EVM capability: two chain reads per execution, each one Multicall3 `aggregate3`
 * (a DON execution allows few reads): (1) the market, its frozen seats, the identity registry and (with a track
 * record) the governance; (2) every seat's `tokenURI` (and, with an answer relay, its `getAgentWallet` and
 * `ownerOf`); a third only when the panel's record holds a ruling, for the governance's allow-list
 * (`donAllowList`), and one more only when a relayed answer needs a contract wallet's ERC-1271 approval
 * (`readContractSignatures`). The result feeds the pipeline's MarketReader and AgentDirectory ports, so the pipeline reads nothing
 * itself. A reverted tokenURI is the agent's problem (no registration); anything else stops the execution.
 */
import {
  encodeCallMsg,
  LAST_FINALIZED_BLOCK_NUMBER,
  LATEST_BLOCK_NUMBER,
  type EVMClient,
  type Runtime,
} from "@chainlink/cre-sdk";
import { bytesToHex, decodeFunctionResult, encodeFunctionData, zeroAddress, type Address, type Hex } from "viem";
import type { RecordCutoff } from "../../workflow/core/record-document.js";
import type { MarketSnapshot } from "../../workflow/core/types.js";
import {
  type AgentSigners,
  type ContractSignatureCheck,
  ERC1271_MAGIC_VALUE,
} from "../../workflow/relay/known-signers.js";
import type { ArbiterAllowList } from "../../workflow/allowed-rulings.js";
import {
  erc1271Abi,
  governanceReadAbi,
  identityReadAbi,
  marketReadAbi,
  multicall3Abi,
  STATUS_RESOLUTION_REQUESTED,
} from "./abi.js";
import type { Budget } from "./budget.js";
import type { WorkflowConfig } from "./config.js";

export type MarketRead =
  | {
      kind: "ready";
      snapshot: MarketSnapshot;
      tokenURIs: (string | undefined)[];
      /** The market's track-record cut-off (read only when a track record is configured). */
      cutoff?: RecordCutoff;
      /** Per seat, the addresses its answer signature may verify against (read only with an answer relay). */
      signers?: AgentSigners[];
      /** The market's MarketGovernance (read with the cut-off; undefined when the call reverted). */
      governance?: Address;
    }
  /** Nothing to propose: the market left ResolutionRequested (proposed, disputed, final) or does not exist. */
  | { kind: "skip"; reason: string };

interface Call {
  target: Address;
  callData: Hex;
}

function aggregate(
  runtime: Runtime<unknown>,
  evm: EVMClient,
  config: WorkflowConfig,
  reads: Budget,
  calls: Call[],
): { success: boolean; returnData: Hex }[] {
  reads.take("chain read (multicall3 aggregate3)");
  const data = encodeFunctionData({
    abi: multicall3Abi,
    functionName: "aggregate3",
    args: [calls.map((c) => ({ ...c, allowFailure: true }))],
  });
  const reply = evm
    .callContract(runtime, {
      call: encodeCallMsg({ from: zeroAddress, to: config.multicall3Address, data }),
      blockNumber: config.readAt === "latest" ? LATEST_BLOCK_NUMBER : LAST_FINALIZED_BLOCK_NUMBER,
    })
    .result();
  if (reply.data.length === 0) throw new Error(`no Multicall3 at ${config.multicall3Address} (empty reply)`);
  return [...decodeFunctionResult({ abi: multicall3Abi, functionName: "aggregate3", data: bytesToHex(reply.data) })];
}

export function readMarket(
  runtime: Runtime<unknown>,
  evm: EVMClient,
  config: WorkflowConfig,
  reads: Budget,
  marketId: bigint,
): MarketRead {
  const market = config.marketAddress;
  const first: Call[] = [
    {
      target: market,
      callData: encodeFunctionData({ abi: marketReadAbi, functionName: "getMarket", args: [marketId] }),
    },
    {
      target: market,
      callData: encodeFunctionData({ abi: marketReadAbi, functionName: "getWorkers", args: [marketId] }),
    },
  ];
  if (config.identityRegistry === undefined)
    first.push({
      target: market,
      callData: encodeFunctionData({ abi: marketReadAbi, functionName: "identityRegistry" }),
    });
  const withRecord = config.trackRecord !== undefined;
  // The governance's address rides on the first read: its allow-list decides which rulings are truth.
  if (withRecord)
    first.push({ target: market, callData: encodeFunctionData({ abi: marketReadAbi, functionName: "governance" }) });
  const results = aggregate(runtime, evm, config, reads, first);
  const [info, workers] = results;
  const identity = config.identityRegistry === undefined ? results[2] : undefined;
  const governanceResult = withRecord ? results[results.length - 1] : undefined;
  if (info === undefined || workers === undefined)
    throw new Error(`market ${marketId}: the multicall returned too few results`);
  if (!info.success) return { kind: "skip", reason: `market ${marketId} could not be read (getMarket reverted)` };
  const m = decodeFunctionResult({ abi: marketReadAbi, functionName: "getMarket", data: info.returnData });
  if (m.status !== STATUS_RESOLUTION_REQUESTED)
    return { kind: "skip", reason: `market ${marketId} has status ${m.status}, not ResolutionRequested` };
  if (!workers.success) throw new Error(`getWorkers(${marketId}) reverted`);
  const [addresses, agentIds, stakes] = decodeFunctionResult({
    abi: marketReadAbi,
    functionName: "getWorkers",
    data: workers.returnData,
  });
  let registry = config.identityRegistry;
  if (registry === undefined) {
    if (identity === undefined || !identity.success) throw new Error("identityRegistry() reverted");
    registry = decodeFunctionResult({
      abi: marketReadAbi,
      functionName: "identityRegistry",
      data: identity.returnData,
    });
  }

  // The cut-off stored at requestResolution (docs/RECORDS.md §3) comes with getMarket: no extra read.
  let cutoff: RecordCutoff | undefined;
  if (withRecord) {
    if (m.recordCount > BigInt(Number.MAX_SAFE_INTEGER))
      throw new Error(`market ${marketId}: record count out of range`);
    cutoff = { count: Number(m.recordCount), head: m.recordHead };
  }
  const governance =
    governanceResult?.success === true
      ? decodeFunctionResult({ abi: marketReadAbi, functionName: "governance", data: governanceResult.returnData })
      : undefined;

  const snapshot: MarketSnapshot = {
    chainId: config.chainId,
    marketAddress: market,
    marketId,
    question: m.question,
    deadline: Number(m.deadline),
    context: "",
    workers: addresses.map((address, i) => {
      const agentId = agentIds[i];
      const stake = stakes[i];
      if (agentId === undefined || stake === undefined) throw new Error(`getWorkers(${marketId}): arrays disagree`);
      return { address, agentId, stake };
    }),
  };
  const extra = {
    ...(cutoff !== undefined ? { cutoff } : {}),
    ...(governance !== undefined ? { governance } : {}),
  };
  if (snapshot.workers.length === 0) return { kind: "ready", snapshot, tokenURIs: [], ...extra };
  // With a relay, each seat's agentWallet and owner come in the same read (the signatures are checked against them).
  const withSigners = config.answerRelay !== undefined;
  const perSeat = withSigners ? (["tokenURI", "getAgentWallet", "ownerOf"] as const) : (["tokenURI"] as const);
  const seatCalls = snapshot.workers.flatMap((w) =>
    perSeat.map((functionName) => ({
      target: registry,
      callData: encodeFunctionData({ abi: identityReadAbi, functionName, args: [w.agentId] }),
    })),
  );
  const results2 = aggregate(runtime, evm, config, reads, seatCalls);
  const at = (seat: number, k: number) => results2[seat * perSeat.length + k];
  const tokenURIs = snapshot.workers.map((_, i) => {
    const r = at(i, 0);
    return r?.success === true
      ? decodeFunctionResult({ abi: identityReadAbi, functionName: "tokenURI", data: r.returnData })
      : undefined;
  });
  if (!withSigners) return { kind: "ready", snapshot, tokenURIs, ...extra };
  const address = (
    r: { success: boolean; returnData: Hex } | undefined,
    functionName: "getAgentWallet" | "ownerOf",
  ) => {
    if (r?.success !== true) return undefined;
    const a = decodeFunctionResult({ abi: identityReadAbi, functionName, data: r.returnData });
    return a === zeroAddress ? undefined : a;
  };
  const signers = snapshot.workers.map((w, i): AgentSigners => {
    const wallet = address(at(i, 1), "getAgentWallet");
    const owner = address(at(i, 2), "ownerOf");
    return {
      agentId: w.agentId,
      ...(wallet !== undefined ? { wallet } : {}),
      ...(owner !== undefined ? { owner } : {}),
    };
  });
  return { kind: "ready", snapshot, tokenURIs, signers, ...extra };
}

/** Distinct arbiters one allow-list read may ask about (the deployment allow-lists few; a longer list is refused). */
const MAX_ARBITERS_PER_READ = 64;

/**
 * The deployment's allow-list on a DON (workflow/allowed-rulings.ts): one Multicall3 read of the governance's
 * `isArbiterAllowed` for every arbiter that ruled in the panel's window, made only when one did. A reverted sub-call
 * or an unread governance allows nothing, as `deploymentAllowsArbiter` answers on the daemon.
 */
export function donAllowList(
  runtime: Runtime<unknown>,
  evm: EVMClient,
  config: WorkflowConfig,
  reads: Budget,
  governance: Address | undefined,
): ArbiterAllowList {
  return {
    async allowed(arbiters) {
      if (governance === undefined || arbiters.length === 0) return new Set<string>();
      if (arbiters.length > MAX_ARBITERS_PER_READ)
        throw new Error(
          `${arbiters.length} arbiters ruled in the track record; one read asks about ${MAX_ARBITERS_PER_READ}`,
        );
      const calls = arbiters.map((a) => ({
        target: governance,
        callData: encodeFunctionData({ abi: governanceReadAbi, functionName: "isArbiterAllowed", args: [a] }),
      }));
      const results = aggregate(runtime, evm, config, reads, calls);
      const allowed = new Set<string>();
      arbiters.forEach((a, i) => {
        const r = results[i];
        if (r?.success !== true) return;
        if (decodeFunctionResult({ abi: governanceReadAbi, functionName: "isArbiterAllowed", data: r.returnData }))
          allowed.add(a.toLowerCase());
      });
      return allowed;
    },
  };
}

/** Contract-wallet checks one read may carry (two per seat of the largest relayed panel). */
const MAX_SIGNATURE_CHECKS = 200;

/**
 * ERC-1271 on a DON: one Multicall3 read of `isValidSignature(digest, signature)` for every check a relayed document
 * needs (workflow/relay/known-signers.ts `contractSignatureChecks`), made only when there is one. Returns the checks
 * the contract approved: success and a 32-byte word starting with the magic value, as OpenZeppelin's SignatureChecker
 * reads it on-chain; a revert, an EOA (empty reply) or any other value approves nothing.
 */
export function readContractSignatures(
  runtime: Runtime<unknown>,
  evm: EVMClient,
  config: WorkflowConfig,
  reads: Budget,
  checks: readonly ContractSignatureCheck[],
): ContractSignatureCheck[] {
  if (checks.length === 0) return [];
  if (checks.length > MAX_SIGNATURE_CHECKS)
    throw new Error(`${checks.length} contract-wallet signature checks; one read carries ${MAX_SIGNATURE_CHECKS}`);
  const calls = checks.map((c) => ({
    target: c.signer,
    callData: encodeFunctionData({ abi: erc1271Abi, functionName: "isValidSignature", args: [c.digest, c.signature] }),
  }));
  const results = aggregate(runtime, evm, config, reads, calls);
  return checks.filter((_, i) => {
    const r = results[i];
    return (
      r?.success === true &&
      r.returnData.length >= 66 &&
      r.returnData.slice(0, 10).toLowerCase() === ERC1271_MAGIC_VALUE &&
      /^0{56}$/.test(r.returnData.slice(10, 66))
    );
  });
}
