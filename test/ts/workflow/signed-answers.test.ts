/**
 * Agent-signed answers (issue 21 item 4, docs/RECORDS.md §2) end to end on loopback and Hardhat's in-process chain:
 * the reference agent signs with its key, the cresolver adapter hashes the reply it received, the pipeline's check
 * verifies against the agent's ERC-8004 owner / agentWallet. A wrong key, a garbage signature or an unchecked one
 * make the seat attested with a reason, never a failure.
 */
import { network } from "hardhat";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import type { Address } from "viem";
import { createReferenceAgent, type ReferenceAgent } from "../../../agents/reference/server.js";
import { createCresolverAdapter } from "../../../protocols/cresolver/adapter.js";
import { answerVerifierAbi, resolutionMarketAbi } from "../../../workflow/chain/abis.js";
import { registerAgent, setAgentWallet } from "../../../workflow/chain/actions.js";
import { connectProvider, withKey, type ChainContext } from "../../../workflow/chain/clients.js";
import { deployAll } from "../../../workflow/chain/deploy.js";
import { createChainPorts } from "../../../workflow/chain/ports.js";
import {
  answerDigest,
  answerFieldsOf,
  replyHash,
  signAnswer,
  verifyAnswer,
  type AnswerFields,
} from "../../../workflow/core/answer-signature.js";
import type { MarketSnapshot, WorkerRecord } from "../../../workflow/core/types.js";
import { createSafeHttpClient } from "../../../workflow/http/index.js";
import { checkSignatures } from "../../../workflow/pipeline/signatures.js";
import { reportsOf } from "../../../workflow/pipeline/07-resolve.js";
import { hardhatKey } from "../cli/helpers/keys.js";

let ctx: ChainContext;
let market: Address;
let identity: Address;
const agents: ReferenceAgent[] = [];
const http = createSafeHttpClient({ allowLoopback: true });
const adapter = createCresolverAdapter({ http });

async function startAgent(signingKey?: `0x${string}`): Promise<string> {
  const agent = createReferenceAgent({ protocol: "cresolver", ...(signingKey ? { signingKey } : {}) });
  agents.push(agent);
  return agent.start({ port: 0 });
}

function snapshot(agentIds: bigint[]): MarketSnapshot {
  return {
    chainId: ctx.chainId,
    marketAddress: market,
    marketId: 7n,
    question: "Will the signed answer verify?",
    deadline: 1_900_000_000,
    context: "",
    workers: agentIds.map((agentId, i) => ({
      address: privateKeyToAccount(hardhatKey(i + 1)).address,
      agentId,
      stake: 1n,
    })),
  };
}

/** Asks each (agent URL, seat) like the ask stage does and returns answered records. */
async function ask(m: MarketSnapshot, urls: string[]): Promise<WorkerRecord[]> {
  return Promise.all(
    m.workers.map(async (seat, i) => {
      const endpoint = { url: urls[i] ?? "", protocol: "cresolver" };
      const res = await adapter.ask(endpoint, seat, {
        marketId: m.marketId,
        question: m.question,
        deadline: m.deadline,
        context: "",
        chainId: m.chainId,
        marketAddress: m.marketAddress,
      });
      if (!res.ok) throw new Error(res.failure.message);
      return { seat, endpoint, answer: res.value };
    }),
  );
}

beforeAll(async () => {
  const provider = (await network.create()).provider;
  ctx = await connectProvider({ provider, privateKey: hardhatKey(0) });
  const deployment = await deployAll(ctx, { network: "hardhat" });
  market = deployment.contracts.ResolutionMarket.address;
  identity = deployment.contracts.IdentityRegistry.address;
});

afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  await http.close();
});

describe("answer signatures", () => {
  it("sign/verify: the signer verifies, any changed field or another address does not", async () => {
    const account = privateKeyToAccount(hardhatKey(4));
    const fields: AnswerFields = {
      chainId: ctx.chainId,
      market,
      marketId: 1n,
      agentId: 2n,
      answer: "yes",
      confidenceBps: 8000,
      replyHash: replyHash({ determination: true, confidence: 0.8, evidence: "e", sources: ["s"] }),
    };
    const signature = await signAnswer(account, fields);
    expect(await verifyAnswer(ctx.publicClient, account.address, fields, signature)).toBe(true);
    for (const changed of [
      { answer: "no" as const },
      { confidenceBps: 8001 },
      { agentId: 3n },
      { marketId: 2n },
      { chainId: ctx.chainId + 1 },
      { market: identity },
      { replyHash: replyHash({ determination: true }) },
    ])
      expect(await verifyAnswer(ctx.publicClient, account.address, { ...fields, ...changed }, signature)).toBe(false);
    expect(await verifyAnswer(ctx.publicClient, identity, fields, signature)).toBe(false);
    expect(await verifyAnswer(ctx.publicClient, account.address, fields, "0x1234")).toBe(false);
    // The reply hash ignores the signature field and key order.
    expect(replyHash({ b: 1, a: 2, signature: "0xff" })).toBe(replyHash({ a: 2, b: 1 }));
  });

  it("the reference agent signs; the pipeline marks it signed (owner, agentWallet) or attested with a reason", async () => {
    const ownerKey = hardhatKey(1);
    const walletKey = hardhatKey(6);
    const strangerKey = hardhatKey(7);
    const owned = (await registerAgent(withKey(ctx, ownerKey), identity, "data:application/json,{}")).agentId;
    const walleted = (await registerAgent(withKey(ctx, hardhatKey(2)), identity, "data:application/json,{}")).agentId;
    await setAgentWallet(withKey(ctx, hardhatKey(2)), identity, walleted, walletKey);
    const forged = (await registerAgent(withKey(ctx, hardhatKey(3)), identity, "data:application/json,{}")).agentId;
    const unsigned = (await registerAgent(withKey(ctx, hardhatKey(5)), identity, "data:application/json,{}")).agentId;
    const urls = [
      await startAgent(ownerKey),
      await startAgent(walletKey),
      await startAgent(strangerKey),
      await startAgent(),
    ];
    const m = snapshot([owned, walleted, forged, unsigned]);
    const asked = await ask(m, urls);
    const verifier = createChainPorts({ ctx, marketAddress: market, identityRegistry: identity }).signatures;
    const checked = await checkSignatures(m, asked, verifier);
    const checks = checked.map((r) => r.signatureCheck);
    expect(checks[0]).toMatchObject({ status: "signed", signer: privateKeyToAccount(ownerKey).address });
    expect(checks[1]).toMatchObject({ status: "signed", signer: privateKeyToAccount(walletKey).address });
    expect(checks[2]).toMatchObject({
      status: "attested",
      reason: "signature does not verify against the agent's agentWallet or owner",
    });
    expect(checks[3]).toEqual({ status: "attested", replyHash: asked[3]?.answer?.replyHash, signature: "0x" });
    // The signed fields are the report's: answer and confidenceBps as posted, the hash of the reply received.
    const reports = reportsOf(checked, undefined);
    const a0 = asked[0]?.answer;
    if (a0 === undefined) throw new Error("unreachable");
    const fields = answerFieldsOf(
      { chainId: ctx.chainId, market, marketId: m.marketId, agentId: owned },
      a0,
      reports[0]?.replyHash ?? "0x",
    );
    expect(fields).toMatchObject({ answer: reports[0]?.answer, confidenceBps: reports[0]?.confidenceBps });
    expect(reports[0]?.signature).toBe(checks[0]?.signature);
    expect(reports[2]).not.toHaveProperty("signature");
    expect(reports[3]).not.toHaveProperty("signature");

    // No verifier, a malformed signature, a verifier that fails: attested with a reason, never a throw.
    expect((await checkSignatures(m, asked.slice(0, 1), undefined))[0]?.signatureCheck).toMatchObject({
      status: "attested",
      reason: "no signature verifier configured",
    });
    const garbage = asked
      .slice(0, 1)
      .map((r) => ({ ...r, answer: { ...r.answer, signature: "invalid" } })) as WorkerRecord[];
    expect((await checkSignatures(m, garbage, verifier))[0]?.signatureCheck).toMatchObject({
      status: "attested",
      reason: "signature is not 0x-hex",
    });
    const down = { verify: async () => Promise.reject(new Error("rpc down\nstack")) };
    expect((await checkSignatures(m, asked.slice(0, 1), down))[0]?.signatureCheck).toMatchObject({
      status: "attested",
      reason: "signature could not be checked: rpc down",
    });
  });

  it("a signature made here verifies on-chain (same EIP-712 digest); a tampered field or another signer does not", async () => {
    const key = hardhatKey(9);
    const agentId = (await registerAgent(withKey(ctx, key), identity, "data:application/json,{}")).agentId;
    const verifierAddress = await ctx.publicClient.readContract({
      address: market,
      abi: resolutionMarketAbi,
      functionName: "answerVerifier",
    });
    const fields: AnswerFields = {
      chainId: ctx.chainId,
      market,
      marketId: 3n,
      agentId,
      answer: "no",
      confidenceBps: 7250,
      replyHash: replyHash({ determination: false, confidence: 0.725, evidence: "e" }),
    };
    const onChain = (f: AnswerFields, signature: `0x${string}`) =>
      ctx.publicClient.readContract({
        address: verifierAddress,
        abi: answerVerifierAbi,
        functionName: "isValid",
        args: [
          fields.marketId,
          fields.agentId,
          {
            answer: f.answer === "yes" ? 3 : 2,
            confidenceBps: f.confidenceBps,
            resQuality: 0,
            srcQuality: 0,
            analysisDepth: 0,
            replyHash: f.replyHash,
            signature,
          },
        ],
      });
    expect(
      await ctx.publicClient.readContract({
        address: verifierAddress,
        abi: answerVerifierAbi,
        functionName: "answerDigest",
        args: [fields.marketId, fields.agentId, 2, fields.confidenceBps, fields.replyHash],
      }),
    ).toBe(answerDigest(fields));
    const signature = await signAnswer(privateKeyToAccount(key), fields);
    expect(await onChain(fields, signature)).toBe(true);
    // The contract checks what the report says against the signed fields: any change breaks it.
    for (const changed of [{ answer: "yes" as const }, { confidenceBps: 7251 }, { replyHash: replyHash({}) }])
      expect(await onChain({ ...fields, ...changed }, signature)).toBe(false);
    // Signed for another market id or chain: the report's market/chain differ from the signed ones.
    for (const other of [{ marketId: 4n }, { chainId: ctx.chainId + 1 }])
      expect(await onChain(fields, await signAnswer(privateKeyToAccount(key), { ...fields, ...other }))).toBe(false);
    expect(await onChain(fields, await signAnswer(privateKeyToAccount(hardhatKey(7)), fields))).toBe(false);
    expect(await onChain(fields, "0x")).toBe(false);
  });

  it("a reply altered after signing no longer verifies (the hash is the resolver's, from what it received)", async () => {
    const key = hardhatKey(8);
    const agentId = (await registerAgent(withKey(ctx, key), identity, "data:application/json,{}")).agentId;
    const m = snapshot([agentId]);
    const [record] = await ask(m, [await startAgent(key)]);
    if (record?.answer === undefined) throw new Error("no answer");
    const tampered = [{ ...record, answer: { ...record.answer, replyHash: replyHash({ determination: false }) } }];
    const verifier = createChainPorts({ ctx, marketAddress: market, identityRegistry: identity }).signatures;
    expect((await checkSignatures(m, tampered, verifier))[0]?.signatureCheck?.status).toBe("attested");
    expect((await checkSignatures(m, [record], verifier))[0]?.signatureCheck?.status).toBe("signed");
  });
});
