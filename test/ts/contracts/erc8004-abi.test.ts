/**
 * Our ERC-8004 registries must be drop-in replacements for the canonical ones: every canonical
 * function and event (minus the upgrade/ownership plumbing ours deliberately lacks) must exist in our
 * compiled ABI with the same selector/topic, the same outputs and mutability, and the same indexed flags.
 */
import { readFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  toEventSelector,
  toFunctionSelector,
  type Abi,
  type AbiEvent,
  type AbiFunction,
  type AbiParameter,
} from "viem";
import { formatAbiItem } from "viem/utils";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** Plumbing of the canonical UUPS/Ownable deployments that our non-upgradeable registries omit. */
const PLUMBING = new Set([
  "initialize",
  "upgradeToAndCall",
  "proxiableUUID",
  "UPGRADE_INTERFACE_VERSION",
  "owner",
  "transferOwnership",
  "renounceOwnership",
  "Initialized",
  "Upgraded",
  "OwnershipTransferred",
]);

function canonicalAbi(name: string): Abi {
  return JSON.parse(readFileSync(path.join(root, "test/fixtures/erc8004-abis", `${name}.json`), "utf8")) as Abi;
}

function compiledAbi(name: string): Abi {
  const file = path.join(root, "artifacts/contracts/erc8004", `${name}.sol`, `${name}.json`);
  if (!existsSync(file)) throw new Error(`missing artifact ${file}: run \`npx hardhat build\` first`);
  return (JSON.parse(readFileSync(file, "utf8")) as { abi: Abi }).abi;
}

/** Type signature of a parameter list, tuples expanded, names ignored. */
function typesOf(params: readonly AbiParameter[]): string {
  return params
    .map((p) => {
      if (p.type.startsWith("tuple") && "components" in p) return `(${typesOf(p.components)})${p.type.slice(5)}`;
      return p.type;
    })
    .join(",");
}

function functionsBySelector(abi: Abi): Map<string, AbiFunction> {
  const out = new Map<string, AbiFunction>();
  for (const item of abi) if (item.type === "function") out.set(toFunctionSelector(formatAbiItem(item)), item);
  return out;
}

function eventsByTopic(abi: Abi): Map<string, AbiEvent> {
  const out = new Map<string, AbiEvent>();
  for (const item of abi) if (item.type === "event") out.set(toEventSelector(formatAbiItem(item)), item);
  return out;
}

const REGISTRIES = ["IdentityRegistry", "ReputationRegistry", "ValidationRegistry"] as const;

describe.each(REGISTRIES)("%s is ABI-compatible with canonical ERC-8004 v2.0.0", (name) => {
  const artifact = path.join(root, "artifacts/contracts/erc8004", `${name}.sol`, `${name}.json`);
  // ValidationRegistry is optional in issue 2; the other two are required.
  const required = name !== "ValidationRegistry";
  const run = required || existsSync(artifact) ? it : it.skip;

  run("has every canonical function with the same selector, outputs and mutability", () => {
    const ours = functionsBySelector(compiledAbi(name));
    const canonical = [...functionsBySelector(canonicalAbi(name))].filter(([, f]) => !PLUMBING.has(f.name));
    expect(canonical.length).toBeGreaterThan(5);
    const missing = canonical.filter(([sel]) => !ours.has(sel)).map(([, f]) => formatAbiItem(f));
    expect(missing).toEqual([]);
    for (const [sel, f] of canonical) {
      const mine = ours.get(sel)!;
      expect({ fn: f.name, outputs: typesOf(mine.outputs), mutability: mine.stateMutability }).toEqual({
        fn: f.name,
        outputs: typesOf(f.outputs),
        mutability: f.stateMutability,
      });
    }
  });

  run("has every canonical event with the same topic and indexed flags", () => {
    const ours = eventsByTopic(compiledAbi(name));
    const canonical = [...eventsByTopic(canonicalAbi(name))].filter(([, e]) => !PLUMBING.has(e.name));
    expect(canonical.length).toBeGreaterThan(0);
    const missing = canonical.filter(([topic]) => !ours.has(topic)).map(([, e]) => formatAbiItem(e));
    expect(missing).toEqual([]);
    for (const [topic, e] of canonical) {
      const indexed = (ev: AbiEvent) => ev.inputs.map((i) => Boolean(i.indexed));
      expect({ event: e.name, indexed: indexed(ours.get(topic)!) }).toEqual({ event: e.name, indexed: indexed(e) });
    }
  });
});

it("isAuthorizedOrOwner(address,uint256) exists on our IdentityRegistry (absent from the canonical JSON)", () => {
  const ours = functionsBySelector(compiledAbi("IdentityRegistry"));
  const f = ours.get(toFunctionSelector("isAuthorizedOrOwner(address,uint256)"));
  expect(f?.stateMutability).toBe("view");
  expect(f && typesOf(f.outputs)).toBe("bool");
});
