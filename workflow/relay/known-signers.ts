/**
 * An AnswerSignatureVerifier over signers already read: the address recovered from the EIP-712 `Answer` signature
 * (workflow/core/answer-signature.ts) must be the seat's ERC-8004 `agentWallet` or owner as given. Pure computation,
 * so every DON node reaches the same result from the addresses of its multicall (cre/resolution/chain.ts).
 *
 * ERC-1271 (contract) wallets: a contract's approval needs an `isValidSignature(digest, signature)` call, which this
 * module cannot make. `contractSignatureChecks` lists the calls a relayed document needs — only for answers whose
 * recovered signer does not settle the question — the DON makes them in one more Multicall3 read, and the approvals
 * go back into `createKnownSignerVerifier`. The order is the on-chain AnswerVerifier's and the Node chain verifier's
 * (workflow/chain/ports.ts): the wallet (EOA or ERC-1271), then the owner (EOA or ERC-1271), so the signer named in
 * the bundle is the same on a DON and on a daemon.
 */
import { hashTypedData, isAddressEqual, recoverTypedDataAddress } from "viem";
import { answerFieldsOf, answerTypedData, isSignatureHex, replyHash } from "../core/answer-signature.js";
import type { AnswerFields } from "../core/answer-signature.js";
import type { Address, Hex } from "../core/types.js";
import type { AnswerSignatureVerifier } from "../ports.js";
import type { ParsedRelayDocument, RelayMarket } from "./answer-document.js";

/** An agent's ERC-8004 `agentWallet` and owner (undefined: unset, or the read reverted). */
export interface AgentSigners {
  agentId: bigint;
  wallet?: Address;
  owner?: Address;
}

/** One `isValidSignature(digest, signature)` call to make on `signer` (a seat's wallet or owner). */
export interface ContractSignatureCheck {
  agentId: bigint;
  signer: Address;
  digest: Hex;
  signature: Hex;
}

/** ERC-1271 `isValidSignature` selector: the value a contract returns to approve. */
export const ERC1271_MAGIC_VALUE: Hex = "0x1626ba7e";

/** The EIP-712 digest the wallet contract is asked about. */
export function answerDigest(fields: AnswerFields): Hex {
  return hashTypedData(answerTypedData(fields));
}

async function recover(fields: AnswerFields, signature: Hex): Promise<Address | undefined> {
  try {
    return await recoverTypedDataAddress({ ...answerTypedData(fields), signature });
  } catch {
    // A malformed signature is simply not the agent's (a contract may still approve it).
    return undefined;
  }
}

const same = (a: Address | undefined, b: Address | undefined): boolean =>
  a !== undefined && b !== undefined && isAddressEqual(a, b);

/**
 * The contract calls that decide the relayed answers of `signers`' seats: for each signed reply, `isValidSignature`
 * on the wallet unless the signature recovers to it, and on the owner unless it recovers to the owner or the owner
 * is the wallet. Empty when every answer is an EOA's (the usual case: no extra read).
 */
export async function contractSignatureChecks(
  document: ParsedRelayDocument,
  market: RelayMarket,
  signers: readonly AgentSigners[],
): Promise<ContractSignatureCheck[]> {
  const checks: ContractSignatureCheck[] = [];
  for (const s of signers) {
    const entry = document.replyOf(s.agentId);
    if (entry === undefined || "invalid" in entry) continue;
    const { signature, ...reply } = entry.reply;
    if (!isSignatureHex(signature)) continue;
    const fields = answerFieldsOf({ ...market, agentId: s.agentId }, reply, replyHash(reply));
    const recovered = await recover(fields, signature);
    if (same(recovered, s.wallet)) continue;
    const digest = answerDigest(fields);
    if (s.wallet !== undefined) checks.push({ agentId: s.agentId, signer: s.wallet, digest, signature });
    if (s.owner !== undefined && !same(recovered, s.owner) && !same(s.owner, s.wallet))
      checks.push({ agentId: s.agentId, signer: s.owner, digest, signature });
  }
  return checks;
}

/**
 * `signers` as a verifier; `approved` are the contract checks whose `isValidSignature` returned the magic value
 * (anything else, a revert included, is "not valid", as OpenZeppelin's SignatureChecker on-chain).
 */
export function createKnownSignerVerifier(
  signers: readonly AgentSigners[],
  approved: readonly ContractSignatureCheck[] = [],
): AnswerSignatureVerifier {
  const byAgent = new Map(signers.map((s) => [s.agentId, s]));
  return {
    async verify(fields, signature) {
      const known = byAgent.get(fields.agentId);
      if (known === undefined) return undefined;
      const recovered = await recover(fields, signature);
      const digest = approved.length > 0 ? answerDigest(fields) : undefined;
      const approves = (signer: Address) =>
        approved.some(
          (c) =>
            c.agentId === fields.agentId &&
            c.digest === digest &&
            c.signature.toLowerCase() === signature.toLowerCase() &&
            isAddressEqual(c.signer, signer),
        );
      for (const candidate of [known.wallet, known.owner])
        if (candidate !== undefined && (same(candidate, recovered) || approves(candidate))) return candidate;
      return undefined;
    },
  };
}
