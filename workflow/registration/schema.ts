/**
 * zod schema of the ERC-8004 agent registration file ("registration-v1"), the JSON an agent's
 * tokenURI points to. Unknown keys are kept (the EIP lets agents add fields such as x402Support,
 * category, tags); known keys are checked and every string and array is capped, because the file
 * is written by whoever registered the agent.
 */
import { z } from "zod";

export const REGISTRATION_V1_TYPE = "https://eips.ethereum.org/EIPS/eip-8004#registration-v1";

export const REGISTRATION_LIMITS = {
  /** Names, endpoints, versions, protocols, registry ids, trust labels. */
  maxShortString: 2_048,
  maxDescription: 10_000,
  /**
   * Images are cosmetic but often inline `data:image/...` URIs; a tight cap would make an
   * otherwise valid agent undiscoverable, so they get more room (the document cap still applies).
   */
  maxImage: 262_144,
  maxServices: 64,
  maxRegistrations: 64,
  maxSupportedTrust: 64,
} as const;

const L = REGISTRATION_LIMITS;

/** NUL never belongs in any of these fields and trips C-string consumers downstream. */
const noNul = (s: string) => !s.includes("\u0000");
/** Single-line identifiers (names, endpoints, protocols): no control characters at all. */
const noControl = (s: string) => !/[\u0000-\u001f\u007f]/.test(s);
const notBlank = (s: string) => s.trim().length > 0;

const text = (max: number) => z.string().max(max).refine(noNul, "must not contain NUL characters");
const line = (max: number) => z.string().max(max).refine(noControl, "must not contain control characters");
const requiredLine = (max: number) => line(max).refine(notBlank, "must not be empty");

export const registrationServiceSchema = z.looseObject({
  name: requiredLine(L.maxShortString),
  endpoint: requiredLine(L.maxShortString),
  version: line(L.maxShortString).optional(),
  protocol: requiredLine(L.maxShortString).optional(),
});

export const registrationEntrySchema = z.looseObject({
  // ERC-721 tokenIds are uint256: numbers above 2^53 arrive as strings; null/absent before minting.
  agentId: z
    .union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), line(L.maxShortString)])
    .nullable()
    .optional(),
  // e.g. "eip155:1:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432"
  agentRegistry: requiredLine(L.maxShortString),
});

export const registrationFileSchema = z.looseObject({
  type: z.literal(REGISTRATION_V1_TYPE),
  name: requiredLine(L.maxShortString),
  description: text(L.maxDescription).optional(),
  image: line(L.maxImage).optional(),
  services: z.array(registrationServiceSchema).min(1).max(L.maxServices),
  active: z.boolean().optional(),
  registrations: z.array(registrationEntrySchema).max(L.maxRegistrations).optional(),
  supportedTrust: z.array(requiredLine(L.maxShortString)).max(L.maxSupportedTrust).optional(),
});

export type RegistrationFile = z.infer<typeof registrationFileSchema>;
export type RegistrationService = z.infer<typeof registrationServiceSchema>;
export type RegistrationEntry = z.infer<typeof registrationEntrySchema>;

/** One line naming the first few problems, for RegistrationError messages. */
export function summarizeIssues(error: z.ZodError, maxIssues = 3): string {
  const parts = error.issues.slice(0, maxIssues).map((issue) => {
    const path = issue.path.length > 0 ? issue.path.map(String).join(".") : "(root)";
    return `${path}: ${issue.message}`;
  });
  const more = error.issues.length > maxIssues ? ` (+${error.issues.length - maxIssues} more)` : "";
  return parts.join("; ") + more;
}
