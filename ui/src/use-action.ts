/**
 * A button's call to the admin API: says how it went in a status line, and
 * bumps `version` so the section reloads what the call changed.
 */
import { useState } from "preact/hooks";

export interface Action {
  readonly version: number;
  readonly notice: string | undefined;
  /** Runs `request`; resolves to its error, if it failed. */
  act(what: string, request: () => Promise<unknown>): Promise<unknown>;
}

export function useAction(): Action {
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  return {
    version,
    notice,
    async act(what, request) {
      let failure: unknown;
      try {
        await request();
        setNotice(`${what}: done`);
      } catch (e) {
        failure = e;
        setNotice(`${what}: ${e instanceof Error ? e.message : String(e)}`);
      }
      setVersion((v) => v + 1);
      return failure;
    },
  };
}
