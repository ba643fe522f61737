/**
 * Every generated file under `spec/`, in one list: `npm run spec:generate`
 * writes them, `npm run spec:check` fails when any differs from what the
 * schemas generate. Each entry renders its file's full text.
 */
export interface SpecDocument {
  /** Path relative to the project root, e.g. `spec/openapi.yaml`. */
  readonly file: string;
  readonly render: () => string | Promise<string>;
}

export const SPEC_DOCUMENTS: SpecDocument[] = [];
