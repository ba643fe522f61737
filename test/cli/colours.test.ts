import { expect, test } from "vitest";
import { coloursFor } from "../../src/report/console.ts";

const tty = { isTTY: true, hasColors: () => true };

test("colour on a TTY that has colours", () => {
  expect(coloursFor(tty, {}).red("x")).toBe("\u001b[31mx\u001b[39m");
});

test("no colour when piped, with NO_COLOR, or when the terminal has none", () => {
  expect(coloursFor({ isTTY: false, hasColors: () => true }, {}).red("x")).toBe("x");
  expect(coloursFor({}, {}).red("x")).toBe("x");
  expect(coloursFor(tty, { NO_COLOR: "1" }).red("x")).toBe("x");
  expect(coloursFor({ isTTY: true, hasColors: () => false }, {}).green("x")).toBe("x");
});
