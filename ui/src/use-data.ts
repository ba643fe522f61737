/** Loads a path whenever `deps` change (a live event bumps them), keeping the last good value. */
import { useEffect, useState } from "preact/hooks";
import { call } from "./api.ts";

export function useData<T>(path: string | undefined, deps: readonly unknown[]): [T | undefined, string | undefined] {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (path === undefined) return;
    let current = true;
    call<T>(path).then(
      (value) => current && (setData(value), setError(undefined)),
      (e: unknown) => current && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      current = false;
    };
  }, [path, ...deps]);
  return [data, error];
}
