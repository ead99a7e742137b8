// Staff sessions (docs/api.md, "Sessions"): signing in with an e-mail address and a password, the
// session a cookie resolves to (a Caller with the role's scopes, checked like any key), signing out,
// ending one's other sessions and changing one's password.
import { hash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { AppError, notFound } from '../errors.ts';
import type { Verdict } from '../http/policies/rate-limit.ts';
import type { Caller, SignedIn } from '../keys/key.types.ts';
import { onlyActivity, write } from '../events/event.outbox.ts';
import type { Storage } from '../storage/storage.ts';
import type { CurrentSession, NewSession, Session } from './session.schemas.ts';
import { checkPassword, type PasswordHasher } from './staff.password.ts';
import { ROLE_SCOPES } from './staff.roles.ts';
import type { PasswordChange } from './staff.schemas.ts';
import { hashToken } from './staff.service.ts';
import type { StoredSession, StoredStaff } from './staff.store.ts';

const SESSION_PREFIX = 'pss_';
const SESSION_TOKEN = /^pss_[A-Za-z0-9_-]{43}$/;
/** A session's last request is written at most once a minute: the idle timeout counts in minutes. */
const TOUCH_MS = 60_000;

export interface SessionSettings {
  /** SESSION_IDLE_MINUTES: a session without a request for this long ends. */
  readonly idleMinutes: number;
  /** SESSION_MAX_HOURS: a session ends this long after sign-in, however active. */
  readonly maxHours: number;
  /** STAFF_REQUIRE_PASSKEY: an owner or manager who has a passkey may not sign in with a password. */
  readonly requirePasskey: boolean;
}

/** The roles STAFF_REQUIRE_PASSKEY applies to. */
const PASSKEY_ROLES: ReadonlySet<string> = new Set(['owner', 'manager']);

/** A limiter of failed sign-ins (http/policies/rate-limit.ts, FixedWindowLimiter). */
export interface FailureLimiter {
  isBlocked(key: string): Verdict | undefined;
  hit(key: string): Promise<Verdict>;
}

export interface SignInThrottle {
  /** Failed sign-ins per client address. */
  readonly perAddress: FailureLimiter;
  /** Failed sign-ins per account and client address: a flood from elsewhere never locks a person out. */
  readonly perAccount: FailureLimiter;
}

/** Where sign-ins, failures and sign-outs are recorded: never the password, the address typed or the cookie. */
export interface SessionLog {
  info(fields: object, message: string): void;
}

export const SIGN_IN_FAILED = new AppError('unauthorized', 'the e-mail address or the password is wrong', { 'www-authenticate': 'Bearer realm="petstore"' });
export const SESSION_ENDED = new AppError('unauthorized', 'the session has ended (signed out, timed out or ended by an owner); sign in again', {
  'www-authenticate': 'Bearer realm="petstore"',
});
export const PASSKEY_REQUIRED = new AppError('passkey_required', 'owners and managers who have a passkey sign in with it (STAFF_REQUIRE_PASSKEY)');
export const NOT_SIGNED_IN = new AppError('forbidden', 'this operation is for a person signed in to the console, not for an API key');

const tooMany = (v: Verdict) => new AppError('rate_limited', `too many failed sign-ins; retry in ${v.reset} s`, { 'retry-after': String(v.reset) });

/** The CSRF token of a session: derived from its token (never stored), so only the one holding the cookie's value can know it. */
const csrfOf = (token: string): string => hash('sha256', `csrf:${token}`, 'base64url');

export class SessionService {
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly #hasher: PasswordHasher;
  readonly #settings: SessionSettings;
  readonly #throttle: SignInThrottle;
  readonly #log: SessionLog;

  constructor(storage: Storage, clock: Clock, hasher: PasswordHasher, settings: SessionSettings, throttle: SignInThrottle, log: SessionLog) {
    this.#storage = storage;
    this.#clock = clock;
    this.#hasher = hasher;
    this.#settings = settings;
    this.#throttle = throttle;
    this.#log = log;
  }

  /** How long the cookie is kept (seconds): the session's absolute lifetime. */
  get maxAgeSeconds(): number {
    return this.#settings.maxHours * 3600;
  }

  /**
   * Signs a person in. Every failure — an unknown address, a wrong password, a person invited or
   * deactivated — gets the same answer after the same work (a password is always hashed, against a
   * decoy for an unknown address). Failures are counted per address and per account-and-address;
   * over either limit the sign-in is refused until the minute's window ends.
   */
  async signIn(input: NewSession, address: string): Promise<{ token: string; current: CurrentSession }> {
    const email = input.email.toLowerCase();
    const accountKey = `${address}|${email}`;
    const blocked = this.#throttle.perAddress.isBlocked(address) ?? this.#throttle.perAccount.isBlocked(accountKey);
    if (blocked) throw tooMany(blocked);
    const person = await this.#storage.staff.findByEmail(email);
    const matches = await this.#hasher.verify(person?.passwordHash ?? null, input.password);
    if (person === undefined || !matches || person.state !== 'active') {
      const [byAddress, byAccount] = await Promise.all([this.#throttle.perAddress.hit(address), this.#throttle.perAccount.hit(accountKey)]);
      this.#log.info({ staffId: person?.id ?? null, outcome: 'failed' }, 'sign-in failed');
      if (!byAddress.allowed) throw tooMany(byAddress);
      if (!byAccount.allowed) throw tooMany(byAccount);
      throw SIGN_IN_FAILED;
    }
    if (this.#settings.requirePasskey && PASSKEY_ROLES.has(person.role) && (await this.#storage.staff.passkeys(person.id)).length > 0) {
      this.#log.info({ staffId: person.id, outcome: 'passkey_required' }, 'password sign-in refused: a passkey is required');
      throw PASSKEY_REQUIRED;
    }
    return this.start(person, 'password');
  }

  /** Opens a session for a person who proved who they are (a password or a passkey). */
  async start(person: StoredStaff, method: 'password' | 'passkey'): Promise<{ token: string; current: CurrentSession }> {
    const now = this.#clock.now();
    const token = SESSION_PREFIX + randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + this.maxAgeSeconds * 1000);
    const session = await write(this.#storage, { now }, async (tx) => {
      await tx.staff.forgetSessions(person.id, now);
      await tx.staff.signedIn(person.id, now);
      const opened = await tx.staff.openSession({ staffId: person.id, tokenHash: hashToken(token), at: now, expiresAt });
      // The request has no principal yet: the person signing in is the actor.
      return { ...onlyActivity(opened, 'session.started', `staff:${person.id}`), actor: { type: 'staff', id: person.id, name: person.name } };
    });
    this.#log.info({ staffId: person.id, sessionId: session.id, method, outcome: 'signed_in' }, 'signed in');
    const { id, name, role, state, createdAt } = person;
    const staff = { id, name, email: person.email, role, state, createdAt, lastSignInAt: now.toISOString() };
    return { token, current: { session: this.#view(session, session.id), staff, scopes: [...ROLE_SCOPES[role]], csrfToken: csrfOf(token) } };
  }

  /**
   * The caller a session token belongs to, or undefined when it is unknown or ended: signed out or
   * ended by someone, idle for SESSION_IDLE_MINUTES, older than SESSION_MAX_HOURS, or its person
   * no longer active (deactivated, reset). Read on every request: nothing is cached, so an ending
   * applies from the next request on.
   */
  async verify(token: string): Promise<Caller | undefined> {
    if (!SESSION_TOKEN.test(token)) return undefined;
    const session = await this.#storage.staff.session(hashToken(token));
    const now = this.#clock.now();
    if (session === undefined || !this.#open(session, now)) return undefined;
    if (now.getTime() - Date.parse(session.lastSeenAt) >= TOUCH_MS) await this.#storage.transaction((tx) => tx.staff.touchSession(session.id, now));
    const subject = `staff:${session.staffId}`;
    const staff: SignedIn = { id: session.staffId, sessionId: session.id, csrf: csrfOf(token) };
    return { keyId: null, name: session.name, scopes: ROLE_SCOPES[session.role], owner: session.role === 'owner', subject, budget: subject, staff };
  }

  #open(s: StoredSession, now: Date): boolean {
    const t = now.getTime();
    return s.endedAt === null && s.state === 'active' && t < Date.parse(s.expiresAt) && t - Date.parse(s.lastSeenAt) < this.#settings.idleMinutes * 60_000;
  }

  #view(s: StoredSession, current: number): Session {
    return { id: s.id, createdAt: s.createdAt, lastSeenAt: s.lastSeenAt, expiresAt: s.expiresAt, current: s.id === current };
  }

  /** The signed-in person, their scopes, this session and its CSRF token. */
  async current(caller: Caller): Promise<CurrentSession> {
    const me = signedIn(caller);
    const [staff, sessions] = await Promise.all([this.#storage.staff.get(me.id), this.list(caller)]);
    const session = sessions.find((s) => s.current);
    if (staff === undefined || session === undefined) throw SESSION_ENDED;
    return { session, staff, scopes: [...caller.scopes], csrfToken: me.csrf };
  }

  /** The person's open sessions, newest first. */
  async list(caller: Caller): Promise<Session[]> {
    const me = signedIn(caller);
    const now = this.#clock.now();
    const sessions = await this.#storage.staff.sessions(me.id, now);
    return sessions.filter((s) => this.#open(s, now)).map((s) => this.#view(s, me.sessionId));
  }

  async signOut(caller: Caller): Promise<void> {
    const me = signedIn(caller);
    await write(this.#storage, { now: this.#clock.now() }, async (tx) =>
      onlyActivity(await tx.staff.endSession(me.id, me.sessionId, this.#clock.now()), 'session.ended', `staff:${me.id}`),
    );
    this.#log.info({ staffId: me.id, sessionId: me.sessionId, outcome: 'signed_out' }, 'signed out');
  }

  /** Ends one of the person's own sessions; another's, or an ended one → 404. */
  async end(caller: Caller, sessionId: number): Promise<void> {
    const me = signedIn(caller);
    const ended = await write(this.#storage, { now: this.#clock.now() }, async (tx) => {
      const done = await tx.staff.endSession(me.id, sessionId, this.#clock.now());
      return done ? onlyActivity(done, 'session.ended', `staff:${me.id}`) : { result: done, events: [] };
    });
    if (!ended) throw notFound(`session ${sessionId}`);
    this.#log.info({ staffId: me.id, sessionId, outcome: 'ended' }, 'session ended by its person');
  }

  /** Ends every session of the person but this one. */
  async endOthers(caller: Caller): Promise<number> {
    const me = signedIn(caller);
    const n = await write(this.#storage, { now: this.#clock.now() }, async (tx) =>
      onlyActivity(await tx.staff.endSessions(me.id, this.#clock.now(), me.sessionId), 'session.ended_others', `staff:${me.id}`),
    );
    this.#log.info({ staffId: me.id, sessions: n, outcome: 'ended_others' }, 'other sessions ended by their person');
    return n;
  }

  /** Changes the person's password (the current one proves it is them); their other sessions end. */
  async changePassword(caller: Caller, input: PasswordChange): Promise<void> {
    const me = signedIn(caller);
    checkPassword(input.newPassword, 'newPassword');
    const email = (await this.#storage.staff.get(me.id))?.email;
    const person = email === undefined ? undefined : await this.#storage.staff.findByEmail(email);
    if (person === undefined || !(await this.#hasher.verify(person.passwordHash, input.currentPassword)))
      throw new AppError('forbidden', 'the current password is wrong');
    const passwordHash = await this.#hasher.hash(input.newPassword);
    await write(this.#storage, { now: this.#clock.now() }, async (tx) => {
      await tx.staff.update(me.id, { passwordHash });
      await tx.staff.endSessions(me.id, this.#clock.now(), me.sessionId);
      return onlyActivity(undefined, 'staff.password_changed', `staff:${me.id}`);
    });
    this.#log.info({ staffId: me.id, outcome: 'password_changed' }, 'password changed; other sessions ended');
  }
}

/** The person of a cookie-authenticated request; an API key → 403 forbidden. */
export function signedIn(caller: Caller): SignedIn {
  if (caller.staff === undefined) throw NOT_SIGNED_IN;
  return caller.staff;
}
