/**
 * Final statuses by name or code, from the status table: what `trigger
 * STATUS` accepts and what it lists when it does not.
 */
import { expect, it } from "vitest";
import { createStatusTable, DEFAULT_STATUS_TABLE } from "../../src/contract/status-codes.ts";
import {
  describeFinalStatuses,
  finalStatusCodes,
  lookupFinalStatus,
  pathToFinalStatus,
  statusName,
} from "../../src/contract/status-names.ts";

const codeOf = (text: string) => {
  const found = lookupFinalStatus(DEFAULT_STATUS_TABLE, text);
  return found.kind === "final" ? found.definition.code : found.kind;
};

it("finds a final status by name in any case and spelling, or by code", () => {
  expect(codeOf("success")).toBe(20);
  expect(codeOf("Failed")).toBe(2);
  expect(codeOf("timeout")).toBe(6);
  expect(codeOf("reversed")).toBe(8);
  expect(codeOf("insufficient-balance")).toBe(7);
  expect(codeOf("Insufficient balance")).toBe(7);
  expect(codeOf("insufficient_balance")).toBe(7);
  expect(codeOf("20")).toBe(20);
  expect(codeOf(" 2 ")).toBe(2);
});

it("says why a name is not a final status: pending, shared by several codes, or unknown", () => {
  expect(lookupFinalStatus(DEFAULT_STATUS_TABLE, "3")).toMatchObject({ kind: "not_final", definition: { code: 3 } });
  expect(lookupFinalStatus(DEFAULT_STATUS_TABLE, "pending")).toMatchObject({ kind: "not_final" });
  expect(lookupFinalStatus(DEFAULT_STATUS_TABLE, "error")).toEqual({
    kind: "ambiguous",
    name: "error",
    codes: [13, 15, 16, 24],
  });
  expect(lookupFinalStatus(DEFAULT_STATUS_TABLE, "exploded")).toEqual({ kind: "unknown", text: "exploded" });
  expect(lookupFinalStatus(DEFAULT_STATUS_TABLE, "99")).toEqual({ kind: "unknown", text: "99" });
});

it("lists every final status once, codes that share a name together", () => {
  const listing = describeFinalStatuses(DEFAULT_STATUS_TABLE);
  expect(listing).toMatch(/^success \(20\), cancelled \(1\), failed \(2\), /);
  expect(listing).toContain("error (13, 15, 16, 24)");
  expect(listing).not.toContain("pending");
  expect(finalStatusCodes(DEFAULT_STATUS_TABLE)).not.toContain(0);
  expect(finalStatusCodes(DEFAULT_STATUS_TABLE)).toHaveLength(18);
});

it("takes its names from the table in use, so a profile brings its own", () => {
  const profile = createStatusTable([
    { code: 0, message: "Pending", class: "pending" },
    { code: 1, message: "Delivered", class: "success" },
    { code: 9, message: "Bounced", class: "failed" },
  ]);
  expect(lookupFinalStatus(profile, "bounced")).toMatchObject({ kind: "final", definition: { code: 9 } });
  expect(lookupFinalStatus(profile, "failed")).toMatchObject({ kind: "unknown" });
  expect(describeFinalStatuses(profile)).toBe("delivered (1), bounced (9)");
});

it("reaches a reversal through a success; every other final status directly", () => {
  expect(pathToFinalStatus(8)).toEqual([20, 8]);
  expect(pathToFinalStatus(2)).toEqual([2]);
  expect(statusName("Insufficient balance")).toBe("insufficient-balance");
});
