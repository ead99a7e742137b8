// Small pieces every page uses: the session and feed in context, loading with reload on live
// events, field-level errors from the API's 400 bodies, a pager over cursors.
import { PetstoreError, type Event } from '@petstore/client';
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
  readonly loading: boolean;
  reload(): void;
}

/** Loads with `load` whenever `deps` change, and again on `reload()`; the last answer wins. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: string | undefined; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const generation = useRef(0);
  const run = useCallback(() => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === generation.current && setState({ data, error: undefined, loading: false }),
      (err: unknown) => mine === generation.current && setState((s) => ({ data: s.data, error: describeError(err), loading: false })),
    );
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

/** The field a 400 names ("body field "name" must …"), or a code that belongs to one field. */
const FIELD_OF_CODE: Readonly<Record<string, string>> = {
  unknown_category: 'categoryId',
  pet_has_open_order: 'status',
  unknown_pet: 'petId',
  category_exists: 'name',
  webhook_url_not_allowed: 'url',
};

export interface Problem {
  /** Messages by the body field they name. */
  readonly fields: Readonly<Record<string, string>>;
  /** A message that names no field. */
  readonly general: string | undefined;
}

export const NO_PROBLEM: Problem = { fields: {}, general: undefined };

export function problemOf(err: unknown): Problem {
  if (err instanceof PetstoreError) {
    const named = /body field "([^"/.]+)/.exec(err.message)?.[1] ?? FIELD_OF_CODE[err.code];
    if (named !== undefined) return { fields: { [named]: err.message }, general: undefined };
  }
  return { fields: {}, general: describeError(err) };
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
          {props.error}
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
