/**
 * A proposal's reports with each yes/no seat signed by its agent (docs/RECORDS.md §2), as the agent's own reply
 * would carry them: the one place tests and benches sign seats by hand. Signed seats are the ones recorded on
 * ERC-8004 and slashable; a seat without a signer, or one that abstained or failed, stays unsigned (attested).
 */
import { keccak256, toHex, zeroHash, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { answerTypedData } from "../../workflow/core/answer-signature.js";

/** Who signs a seat: the agent and a key it accepts (its owner's, or its agentWallet's). */
export interface SeatSigner {
  agentId: bigint;
  key: Hex;
}

/** What every signature of a proposal is bound to (the EIP-712 domain and the market). */
export interface SeatDomain {
  chainId: number;
  market: Address;
  marketId: bigint;
}

/** A report as a test builds it: the answer by name (WorkerReport) or by IResolutionMarket.Answer code (3, 2). */
interface ReportToSign {
  answer: string | number;
  confidenceBps: number;
  replyHash?: Hex;
}

const signedAnswer = (answer: string | number): "yes" | "no" | undefined =>
  answer === "yes" || answer === 3 ? "yes" : answer === "no" || answer === 2 ? "no" : undefined;

/**
 * `reports` with `replyHash` and `signature` on every seat: seat i signed by `signers[i]` over its replyHash
 * (the report's own, else keccak256("reply <i>")); an unsigned seat gets the zero hash and an empty signature.
 */
export function signedReports<R extends ReportToSign>(
  domain: SeatDomain,
  signers: readonly (SeatSigner | undefined)[],
  reports: readonly R[],
): Promise<(R & { replyHash: Hex; signature: Hex })[]> {
  return Promise.all(
    reports.map(async (report, i) => {
      const answer = signedAnswer(report.answer);
      const signer = signers[i];
      if (answer === undefined || signer === undefined)
        return { ...report, replyHash: report.replyHash ?? zeroHash, signature: "0x" as Hex };
      const replyHash = report.replyHash ?? keccak256(toHex(`reply ${i}`));
      const typed = answerTypedData({
        ...domain,
        agentId: signer.agentId,
        answer,
        confidenceBps: report.confidenceBps,
        replyHash,
      });
      return { ...report, replyHash, signature: await privateKeyToAccount(signer.key).signTypedData(typed) };
    }),
  );
}
