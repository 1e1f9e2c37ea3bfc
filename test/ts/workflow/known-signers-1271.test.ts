/**
 * Contract-wallet (ERC-1271) answers on a DON (workflow/relay/known-signers.ts): which `isValidSignature` calls a
 * relayed document needs — none when every answer recovers to its wallet — and the verifier's order with the
 * contracts' approvals: wallet (EOA or contract) first, then owner, as the on-chain AnswerVerifier. The contract
 * calls themselves run against a real chain in test/ts/cre/history-parity.test.ts.
 */
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { testMarket } from "../../../cre/test/agents.js";
import { agentKey, signedReply } from "../../../cre/test/relay.js";
import { answerFieldsOf, replyHash } from "../../../workflow/core/answer-signature.js";
import { encodeRelayDocument, parseRelayDocument } from "../../../workflow/relay/answer-document.js";
import {
  type AgentSigners,
  contractSignatureChecks,
  createKnownSignerVerifier,
} from "../../../workflow/relay/known-signers.js";

const market = testMarket(["https://a.example/", "https://b.example/", "https://c.example/"]);
const at = { chainId: market.chainId, market: market.market, marketId: market.marketId };
const CONTRACT = "0x00000000000000000000000000000000000C1271" as const;
const key = (i: number) => privateKeyToAccount(agentKey(i)).address;

async function relayed() {
  // Seat 0 signs with its wallet's key; seats 1 and 2 with their own key, which is neither wallet nor owner for
  // seat 1 (owned by a contract) and the owner for seat 2 (which also has a separate wallet).
  const replies = await Promise.all([0, 1, 2].map((i) => signedReply(market, i, true, 0.8)));
  const doc = encodeRelayDocument(
    at,
    replies.map((reply, i) => ({ agentId: BigInt(i + 1), reply })),
  );
  const signers: AgentSigners[] = [
    { agentId: 1n, wallet: key(0), owner: key(0) },
    { agentId: 2n, owner: CONTRACT },
    { agentId: 3n, wallet: key(9), owner: key(2) },
  ];
  return { document: parseRelayDocument(JSON.stringify(doc), at), replies, signers };
}

const fieldsOf = (i: number, reply: Awaited<ReturnType<typeof signedReply>>) => {
  const { signature: _signature, ...rest } = reply;
  return answerFieldsOf({ ...at, agentId: BigInt(i + 1) }, rest, replyHash(rest));
};

describe("ERC-1271 answers on a DON", () => {
  it("asks a contract only about answers their recovered signer does not settle: the owner contract of seat 2, the separate wallet of seat 3", async () => {
    const { document, signers } = await relayed();
    const checks = await contractSignatureChecks(document, at, signers);
    expect(checks.map((c) => [c.agentId, c.signer])).toEqual([
      [2n, CONTRACT],
      [3n, key(9)],
    ]);
    expect(await contractSignatureChecks(document, at, signers.slice(0, 1))).toEqual([]);
  });

  it("accepts a contract's answer only with its approval of that digest and signature; the wallet comes first", async () => {
    const { document, replies, signers } = await relayed();
    const checks = await contractSignatureChecks(document, at, signers);
    const [r0, r1, r2] = replies;
    if (r0 === undefined || r1 === undefined || r2 === undefined) throw new Error("three replies");
    const none = createKnownSignerVerifier(signers);
    expect(await none.verify(fieldsOf(0, r0), r0.signature as `0x${string}`)).toBe(key(0));
    expect(await none.verify(fieldsOf(1, r1), r1.signature as `0x${string}`)).toBeUndefined();
    expect(await none.verify(fieldsOf(2, r2), r2.signature as `0x${string}`)).toBe(key(2));

    const approvedAll = createKnownSignerVerifier(signers, checks);
    expect(await approvedAll.verify(fieldsOf(1, r1), r1.signature as `0x${string}`)).toBe(CONTRACT);
    // A wallet that approves wins over the owner who signed, as on-chain (wallet first).
    expect(await approvedAll.verify(fieldsOf(2, r2), r2.signature as `0x${string}`)).toBe(key(9));
    // An approval is for one digest: an altered answer (another confidence) is not covered by it.
    const altered = { ...fieldsOf(1, r1), confidenceBps: 9000 };
    expect(await approvedAll.verify(altered, r1.signature as `0x${string}`)).toBeUndefined();
    // Nor for another agent's seat.
    expect(
      await approvedAll.verify({ ...fieldsOf(1, r1), agentId: 3n }, r1.signature as `0x${string}`),
    ).toBeUndefined();
  });
});
