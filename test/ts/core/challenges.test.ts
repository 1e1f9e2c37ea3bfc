import { describe, expect, it } from "vitest";
import { generateChallenges } from "../../../workflow/core/challenges.js";
import { addr, answer, market, records } from "./fixtures.js";

describe("generateChallenges", () => {
  it("gives exactly three challenges to every answering worker and none to non-responders", () => {
    const m = market(4);
    const recs = records(m, [answer(true), answer(false), undefined, answer(true)]);
    const ch = generateChallenges(m, recs);
    expect([...ch.keys()]).toEqual([addr(0), addr(1), addr(3)]);
    for (const list of ch.values()) {
      expect(list).toHaveLength(3);
      for (const c of list) expect(c.length).toBeGreaterThan(20);
    }
  });

  it("confronts the minority with the opposite majority and the majority with the dissent", () => {
    const m = market(3);
    const ch = generateChallenges(m, records(m, [answer(true, 0.82), answer(true, 0.7), answer(false, 0.95)]));
    const minority = ch.get(addr(2))!;
    expect(minority[0]).toMatch(/^Most other workers reached the opposite conclusion \(YES\)/);
    expect(minority[0]).toContain("answer is NO");
    expect(minority[1]).toMatch(/Your confidence is 95% although the panel is not unanimous/);
    expect(minority[1]).toContain("reverse your determination to YES");
    const majority = ch.get(addr(0))!;
    expect(majority[0]).toMatch(/^Some other workers reached the opposite conclusion \(NO\)/);
    expect(majority[1]).toBe(
      "Your confidence is 82%. What would need to change for you to reverse your determination to NO?",
    );
    expect(majority[2]).toMatch(/weakest point/);
  });

  it("asks devil's-advocate questions when everyone agrees", () => {
    const m = market(3);
    const ch = generateChallenges(m, records(m, [answer(false, 0.9), answer(false, 0.55), answer(false, 0.7)]));
    for (const list of ch.values()) {
      expect(list[0]).toMatch(/devil's advocate/);
      expect(list[0]).toContain("answer is YES");
      expect(list[2]).toMatch(/everyone investigating this question have missed/);
      expect(list.join(" ")).not.toMatch(/opposite conclusion/);
    }
    expect(ch.get(addr(1))![1]).toMatch(/^Your confidence is only 55%/);
  });

  it("never reveals addresses, agent ids or other workers' text", () => {
    const m = market(3);
    const secret = (i: number) => `MARKER${i}xyz`;
    const recs = records(m, [
      answer(true, 0.8, { evidence: `Evidence ${secret(0)} here.`, sources: [`https://a.example.org/${secret(0)}`] }),
      answer(false, 0.8, { evidence: `Evidence ${secret(1)} here.`, sources: [`https://b.example.org/${secret(1)}`] }),
      answer(false, 0.6, { evidence: `Evidence ${secret(2)} here.`, sources: [] }),
    ]);
    const ch = generateChallenges(m, recs);
    const all = [...ch.values()].flat().join("\n").toLowerCase();
    for (let i = 0; i < 3; i++) {
      expect(all).not.toContain(secret(i).toLowerCase());
      expect(all).not.toContain(m.workers[i].address.toLowerCase());
      expect(all).not.toContain(m.workers[i].address.slice(2, 10).toLowerCase());
      expect(all).not.toMatch(new RegExp(`\\b${m.workers[i].agentId}\\b`));
    }
  });

  it("is deterministic and independent of worker order", () => {
    const m = market(5);
    const ans = [answer(true, 0.9), answer(false, 0.4), answer(true, 0.6), answer(false, 0.99), answer(true, 0.7)];
    const a = generateChallenges(m, records(m, ans));
    const b = generateChallenges(m, records(m, ans));
    expect([...a.entries()]).toEqual([...b.entries()]);
    const reversed = records(m, ans).reverse();
    const c = generateChallenges(m, reversed);
    for (const [k, v] of a) expect(c.get(k)).toEqual(v);
  });
});
