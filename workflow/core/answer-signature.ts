/**
 * The agent-signed answer of docs/RECORDS.md §2, its one home in TypeScript: the EIP-712 domain and `Answer` type,
 * the `replyHash` of a reply, and sign / verify helpers on viem. The reference agent signs with it, the pipeline
 * verifies with it (through a public client, so ERC-1271 wallets verify too), the bundle's readers re-verify with it.
 *
 *   domain  { name: "cresolver", version: "1", chainId, verifyingContract: the ResolutionMarket }
 *   Answer(uint256 marketId,uint256 agentId,uint8 answer,uint16 confidenceBps,bytes32 replyHash)
 *
 * `answer` is IResolutionMarket.Answer (2 = No, 3 = Yes); `confidenceBps` is the reply's confidence as the report
 * carries it (core/correctness.ts `confidenceToBps`); `replyHash` is keccak256 of the canonical JSON (core/bundle.ts)
 * of the reply as the protocol parses it, with its `signature` field removed. Pure: no I/O besides the client a
 * caller passes in.
 */
import {
  hashTypedData,
  isAddress,
  isHex,
  keccak256,
  stringToBytes,
  type Address,
  type Hex,
  type TypedDataDomain,
} from "viem";
import { canonicalJson } from "./bundle.js";
import { confidenceToBps } from "./correctness.js";

export const ANSWER_DOMAIN_NAME = "cresolver";
export const ANSWER_DOMAIN_VERSION = "1";
/** Longest signature accepted from an agent (an ERC-1271 wallet may use more than 65 bytes; 1 KiB is plenty). */
export const MAX_ANSWER_SIGNATURE_BYTES = 1_024;

/** The EIP-712 `Answer` type (field order is part of the type hash). */
export const ANSWER_TYPES = {
  Answer: [
    { name: "marketId", type: "uint256" },
    { name: "agentId", type: "uint256" },
    { name: "answer", type: "uint8" },
    { name: "confidenceBps", type: "uint16" },
    { name: "replyHash", type: "bytes32" },
  ],
} as const;

/** IResolutionMarket.Answer codes of the two answers an agent can sign. */
export const SIGNED_ANSWER_CODE = { no: 2, yes: 3 } as const;
export type SignedAnswerKind = keyof typeof SIGNED_ANSWER_CODE;

/** Everything an answer signature covers. */
export interface AnswerFields {
  chainId: number;
  /** The ResolutionMarket (the domain's verifyingContract). */
  market: Address;
  marketId: bigint;
  agentId: bigint;
  answer: SignedAnswerKind;
  /** 5000..10000, as the seat's report carries it. */
  confidenceBps: number;
  replyHash: Hex;
}

export function answerDomain(chainId: number, market: Address): TypedDataDomain {
  return { name: ANSWER_DOMAIN_NAME, version: ANSWER_DOMAIN_VERSION, chainId, verifyingContract: market };
}

/** The typed data of `fields`, as viem's signTypedData / verifyTypedData take it. */
export function answerTypedData(fields: AnswerFields) {
  return {
    domain: answerDomain(fields.chainId, fields.market),
    types: ANSWER_TYPES,
    primaryType: "Answer" as const,
    message: {
      marketId: fields.marketId,
      agentId: fields.agentId,
      answer: SIGNED_ANSWER_CODE[fields.answer],
      confidenceBps: fields.confidenceBps,
      replyHash: fields.replyHash,
    },
  };
}

/** The EIP-712 digest a signer signs (what SignatureChecker checks on-chain). */
export function answerDigest(fields: AnswerFields): Hex {
  return hashTypedData(answerTypedData(fields));
}

/** keccak256 of the canonical JSON of `reply` without its `signature` member. Throws TypeError on non-JSON input. */
export function replyHash(reply: Readonly<Record<string, unknown>>): Hex {
  const { signature: _signature, ...rest } = reply;
  return keccak256(stringToBytes(canonicalJson(rest)));
}

/** The signed fields of a yes/no reply (determination and confidence as the seat's report will carry them). */
export function answerFieldsOf(
  at: { chainId: number; market: Address; marketId: bigint; agentId: bigint },
  reply: { determination: boolean; confidence: number },
  hash: Hex,
): AnswerFields {
  return {
    ...at,
    answer: reply.determination ? "yes" : "no",
    confidenceBps: confidenceToBps(reply.confidence),
    replyHash: hash,
  };
}

/** What can sign typed data: a viem LocalAccount or WalletClient-bound account. */
export interface AnswerSigner {
  readonly address: Address;
  signTypedData(parameters: ReturnType<typeof answerTypedData>): Promise<Hex>;
}

export function signAnswer(signer: AnswerSigner, fields: AnswerFields): Promise<Hex> {
  return signer.signTypedData(answerTypedData(fields));
}

/** What verifies typed data for an address, EOA or ERC-1271 contract: a viem PublicClient. */
export interface TypedDataVerifier {
  verifyTypedData(
    parameters: ReturnType<typeof answerTypedData> & { address: Address; signature: Hex },
  ): Promise<boolean>;
}

/** True when `signature` over `fields` is `address`'s (EOA recovery, or its ERC-1271 `isValidSignature`). */
export async function verifyAnswer(
  client: TypedDataVerifier,
  address: Address,
  fields: AnswerFields,
  signature: Hex,
): Promise<boolean> {
  try {
    return await client.verifyTypedData({ ...answerTypedData(fields), address, signature });
  } catch {
    // A malformed signature (wrong length, bad v) or a wallet contract that reverts is simply not valid.
    return false;
  }
}

/** True for well-formed signature text (whole bytes of 0x-hex, within the cap). */
export function isSignatureHex(signature: unknown): signature is Hex {
  return signatureShapeProblem(signature) === undefined;
}

/** Why a signature is not even worth verifying (shape only), or undefined. */
export function signatureShapeProblem(signature: unknown): string | undefined {
  if (typeof signature !== "string" || !isHex(signature, { strict: true })) return "signature is not 0x-hex";
  const bytes = (signature.length - 2) / 2;
  if (!Number.isInteger(bytes) || bytes === 0) return "signature has no whole bytes";
  if (bytes > MAX_ANSWER_SIGNATURE_BYTES) return `signature is ${bytes} bytes, at most ${MAX_ANSWER_SIGNATURE_BYTES}`;
  return undefined;
}

export const isAnswerAddress = (a: unknown): a is Address => typeof a === "string" && isAddress(a, { strict: false });
