/**
 * An AnswerSignatureVerifier over signers already read: the address recovered from the EIP-712 `Answer` signature
 * (workflow/core/answer-signature.ts) must be the seat's ERC-8004 `agentWallet` or owner as given. Pure computation,
 * so every DON node reaches the same result from the addresses of its multicall (cre/resolution/chain.ts) without
 * another read. ERC-1271 (contract) wallets are not covered: their signatures need an `isValidSignature` call, so such
 * a seat does not verify here (the Node resolvers' chain verifier, workflow/chain/ports.ts, does call it).
 */
import { isAddressEqual, recoverTypedDataAddress } from "viem";
import { answerTypedData } from "../core/answer-signature.js";
import type { Address } from "../core/types.js";
import type { AnswerSignatureVerifier } from "../ports.js";

/** An agent's ERC-8004 `agentWallet` and owner (undefined: unset, or the read reverted). */
export interface AgentSigners {
  agentId: bigint;
  wallet?: Address;
  owner?: Address;
}

export function createKnownSignerVerifier(signers: readonly AgentSigners[]): AnswerSignatureVerifier {
  const byAgent = new Map(signers.map((s) => [s.agentId, s]));
  return {
    async verify(fields, signature) {
      const known = byAgent.get(fields.agentId);
      if (known === undefined) return undefined;
      let recovered: Address;
      try {
        recovered = await recoverTypedDataAddress({ ...answerTypedData(fields), signature });
      } catch {
        // A malformed signature is simply not the agent's.
        return undefined;
      }
      for (const candidate of [known.wallet, known.owner])
        if (candidate !== undefined && isAddressEqual(candidate, recovered)) return candidate;
      return undefined;
    },
  };
}
