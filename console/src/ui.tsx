// Small pieces every page uses: the session and feed in context, loading with reload on live
// events, field-level errors from the API's 400 bodies, a pager over cursors.
import { PetstoreError, type Customer, type Event, type Pet } from '@petstore/client';
import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { LiveFeed } from './live.ts';
import { describeError, type Scope, type Session } from './session.ts';

export const SessionContext = createContext<{ session: Session; live: LiveFeed } | null>(null);

export function useSession(): { session: Session; live: LiveFeed } {
  const value = useContext(SessionContext);
  if (value === null) throw new Error('useSession outside a signed-in console');
  return value;
}

/**
 * Runs `listener` when the feed brings an event that `relevant` says concerns this page; on every
 * poll when the key cannot read the feed, or when `relevant` is 'every poll'.
 */
export function useLive(relevant: ((e: Event) => boolean) | 'every poll', listener: () => void): void {
  const { live } = useSession();
  const latest = useRef({ relevant, listener });
  latest.current = { relevant, listener };
  useEffect(
    () =>
      live.subscribe((events) => {
        const { relevant, listener } = latest.current;
        if (relevant === 'every poll' || !live.following || events.some(relevant)) listener();
      }),
    [live],
  );
}

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: string | undefined;
  /** What the last load threw, for problemOf (a filter's 400 shown beside the filter). */
  readonly cause: unknown;
  readonly loading: boolean;
  reload(): void;
}

/** Loads with `load` whenever `deps` change, and again on `reload()`; the last answer wins. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: string | undefined; cause: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    cause: undefined,
    loading: true,
  });
  const generation = useRef(0);
  const run = useCallback(() => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === generation.current && setState({ data, error: undefined, cause: undefined, loading: false }),
      (err: unknown) => mine === generation.current && setState((s) => ({ data: s.data, error: describeError(err), cause: err, loading: false })),
    );
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

/**
 * The animals with these ids, for a list that names them (GET /v1/pets?id=… once for the lot, at
 * most 100: a page's worth); a withdrawn one is not listed, and the list says "Pet N" instead.
 */
export function usePetsById(ids: readonly number[]): ReadonlyMap<number, Pet> {
  const { session } = useSession();
  const unique = [...new Set(ids)].sort((a, b) => a - b).slice(0, 100);
  const key = unique.join(',');
  const pets = useLoad(async () => {
    if (unique.length === 0) return new Map<number, Pet>();
    const page = await session.client.pets.list({ id: unique, limit: unique.length });
    return new Map(page.data.map((p) => [p.id, p]));
  }, [key]);
  return pets.data ?? new Map();
}

/**
 * The customers named by a page of orders, read one by one (the API lists customers by search, not
 * by id; a page names at most 20), when the session may read customers; none otherwise.
 */
export function useCustomersById(ids: readonly (number | undefined)[]): ReadonlyMap<number, Customer> {
  const { session } = useSession();
  const canRead = session.can('customers:read');
  const unique = [...new Set(ids.filter((id) => id !== undefined))].sort((a, b) => a - b);
  const key = unique.join(',');
  const customers = useLoad(async () => {
    if (!canRead || unique.length === 0) return new Map<number, Customer>();
    const found = await Promise.all(unique.map((id) => session.client.customers.get(id).catch(() => undefined)));
    return new Map(found.filter((c) => c !== undefined).map((c) => [c.id, c]));
  }, [key, canRead]);
  return customers.data ?? new Map();
}

/**
 * The refusals that belong to one field, in words for people (the API's own message is exact, for
 * programmers): the field they go beside, and what to say there.
 */
const WORDS_OF_CODE: Readonly<Record<string, { field: string; words?: string }>> = {
  unknown_category: { field: 'categoryId', words: 'That category does not exist any more: choose another.' },
  pet_has_open_order: { field: 'status', words: 'An order for this animal is still open: deliver or cancel it before changing its status.' },
  unknown_pet: { field: 'petId', words: 'No animal in the store has this ID (it may have been withdrawn).' },
  category_exists: { field: 'name', words: 'Another category already has this name (capitals do not make a new one).' },
  webhook_url_not_allowed: { field: 'url' },
  microchip_in_use: { field: 'microchip' },
};

export interface Problem {
  /** Messages by the field they belong to: the first segment of the API's `tags[0]`, `price.amount`, and a nested field by its whole name too (`source.name`). */
  readonly fields: Readonly<Record<string, string>>;
  /** A message that names no field. */
  readonly general: string | undefined;
}

export const NO_PROBLEM: Problem = { fields: {}, general: undefined };

/** What went wrong, beside the field it concerns: a validation_failed's rules in the API's words for people. */
export function problemOf(err: unknown): Problem {
  if (err instanceof PetstoreError) {
    if (err.errors.length > 0) {
      const fields: Record<string, string> = {};
      for (const e of err.errors) {
        const field = /^[^.[]*/.exec(e.field)?.[0] ?? e.field;
        for (const key of new Set([field, e.field])) fields[key] = fields[key] ? `${fields[key]} ${e.message}` : e.message;
      }
      return { fields, general: undefined };
    }
    const known = WORDS_OF_CODE[err.code];
    if (known !== undefined) return { fields: { [known.field]: known.words ?? err.message }, general: undefined };
  }
  return { fields: {}, general: describeError(err) };
}

/**
 * A field's error as a sentence beside its label: the API's words for a rule ("is required", "must
 * be at most 100") take the label as their subject; a message that is a sentence already is kept.
 */
export function sentence(label: string, message: string): string {
  const text = /^(is|must|lists|cannot|change)\b/.test(message) ? `${label} ${message}` : message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** A labelled control with its error beside it, announced and linked by aria-describedby. */
export function Field(props: { id: string; label: string; error?: string | undefined; hint?: string; children: (a11y: FieldA11y) => ComponentChildren }) {
  const errorId = `${props.id}-error`;
  const hintId = `${props.id}-hint`;
  const describedBy = [props.hint ? hintId : '', props.error ? errorId : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children({ id: props.id, 'aria-invalid': props.error ? true : undefined, 'aria-describedby': describedBy })}
      {props.hint && (
        <small id={hintId} class="hint">
          {props.hint}
        </small>
      )}
      {props.error && (
        <p id={errorId} class="field-error">
          {sentence(props.label, props.error)}
        </p>
      )}
    </div>
  );
}

export interface FieldA11y {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

export function Alert({ children }: { children: ComponentChildren }) {
  return (
    <p role="alert" class="alert">
      {children}
    </p>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p role="status" class="notice">
      {children}
    </p>
  );
}

/**
 * What the page's last action said: a success or a failure, one at a time. Every action calls
 * start() first, so a success never stays beside the next action's outcome ("Order 2 is cancelled."
 * beside a refusal about pet 3).
 */
export function useOutcome() {
  const [state, setState] = useState<{ notice?: string; failure?: string }>({});
  return {
    start: () => setState({}),
    succeeded: (notice: string) => setState({ notice }),
    failed: (err: unknown) => setState({ failure: typeof err === 'string' ? err : describeError(err) }),
    /** Runs an action: its notice when it succeeds (then `after`, a reload of what the page shows), its refusal when not. */
    async run(action: () => Promise<unknown>, notice: string, after: () => void): Promise<void> {
      setState({});
      try {
        await action();
        setState({ notice });
        after();
      } catch (err) {
        setState({ failure: describeError(err) });
      }
    },
    view: (
      <>
        {state.notice && <Notice>{state.notice}</Notice>}
        {state.failure && <Alert>{state.failure}</Alert>}
      </>
    ),
  };
}

/** Why an action is not offered: said once, where the action would be. */
export function Missing({ scope, what }: { scope: Scope; what: string }) {
  return (
    <p class="missing">
      Your key cannot {what}: it lacks the scope <code>{scope}</code>.
    </p>
  );
}

/** The page's heading, focused when the page opens so keyboard and screen-reader users start there. */
export function PageHeading({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <h1 id="page-title" tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

/** Cursor paging: the cursors of the pages before the current one, and the next one's. */
export function usePager(resetOn: readonly unknown[]) {
  const [stack, setStack] = useState<(string | undefined)[]>([undefined]);
  useEffect(() => setStack([undefined]), resetOn);
  const cursor = stack[stack.length - 1];
  return {
    cursor,
    page: stack.length,
    next: (nextCursor: string) => setStack((s) => [...s, nextCursor]),
    previous: () => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s)),
  };
}

export function Pager({ pager, nextCursor, label }: { pager: ReturnType<typeof usePager>; nextCursor: string | null | undefined; label: string }) {
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={pager.page === 1} onClick={pager.previous}>
        Previous page
      </button>
      <span>Page {pager.page}</span>
      <button type="button" disabled={!nextCursor} onClick={() => nextCursor && pager.next(nextCursor)}>
        Next page
      </button>
    </nav>
  );
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** A CSV export as the client hands it over: text read as it comes, and the headers that name the file. */
export interface CsvAnswer {
  readonly data: ReadableStream<string>;
  readonly headers: Headers;
}

/** The file name the service gives a download (`Content-Disposition: attachment; filename="…"`). */
function filenameOf(headers: Headers, fallback: string): string {
  return /filename="([^"]+)"/.exec(headers.get('content-disposition') ?? '')?.[1] ?? fallback;
}

/**
 * "Export CSV": asks the API for the export of what the page's filters show (`start`), gathers its
 * text as it arrives and hands it to the browser as a file under the name the service gives it.
 */
export function ExportCsv({ what, start }: { what: string; start: () => Promise<CsvAnswer> }) {
  const [state, setState] = useState<{ busy?: boolean; notice?: string; failure?: string }>({});
  const run = async () => {
    setState({ busy: true });
    try {
      const answer = await start();
      const parts: string[] = [];
      const reader = answer.data.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value);
      const filename = filenameOf(answer.headers, `${what}.csv`);
      const url = URL.createObjectURL(new Blob(parts, { type: 'text/csv' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = filename;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      setState({ notice: `Exported the ${what} these filters show to ${filename}.` });
    } catch (err) {
      setState({ failure: describeError(err) });
    }
  };
  return (
    <div class="export">
      <button type="button" onClick={run} disabled={state.busy}>
        {state.busy ? 'Exporting…' : 'Export CSV'}
      </button>
      {state.notice && <Notice>{state.notice}</Notice>}
      {state.failure && <Alert>{state.failure}</Alert>}
    </div>
  );
}
