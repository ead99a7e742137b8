// Passkeys (docs/api.md, "Passkeys"): a signed-in person registers WebAuthn credentials, lists and
// removes them, and signs in with one alone. Every ceremony's challenge is kept in the database,
// single use (taking it deletes it) and short-lived, so that N instances on one database agree.
import { randomBytes } from 'node:crypto';
import { generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import type { Clock } from '../clock.ts';
import { AppError, notFound } from '../errors.ts';
import { onlyActivity, withoutEvents, write } from '../events/event.outbox.ts';
import type { Caller } from '../keys/key.types.ts';
import type { Storage } from '../storage/storage.ts';
import type { Passkey, PasskeyAssertion, PasskeyOptions, PasskeyRegistration } from './passkey.schemas.ts';
import type { CurrentSession } from './session.schemas.ts';
import { type FailureLimiter, type SessionLog, type SessionService, signedIn } from './session.service.ts';
import type { StoredPasskey } from './staff.store.ts';

/** How long a ceremony may take: the challenge expires after it. */
export const CHALLENGE_MS = 5 * 60_000;
/** A person has at most this many passkeys (a phone, a laptop, a security key or two…). */
export const MAX_PASSKEYS = 10;
/** The challenge of a sign-in: its person is not known until the assertion names its passkey. */
const SIGN_IN = 0;

/** Where the ceremony runs: the service's origin (the CSRF check's, http/policies/session-cookie.ts) and its host as the relying party. */
export interface RelyingParty {
  readonly origin: string;
  readonly id: string;
  readonly name: string;
}

export const relyingParty = (origin: string, name: string): RelyingParty => ({ origin, id: new URL(origin).hostname, name });

export const passkeyRefused = (why: string) => new AppError('passkey_refused', `the passkey was not registered: ${why}`);
const signInRefused = (why: string) =>
  new AppError('unauthorized', `the passkey sign-in was refused: ${why}`, { 'www-authenticate': 'Bearer realm="petstore"' });

/** The challenge a ceremony's client data carries, or undefined when it cannot be read. */
function challengeOf(clientDataJSON: string): string | undefined {
  try {
    const data: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    const challenge = (data as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(challenge) ? challenge : undefined;
  } catch {
    return undefined;
  }
}

const view = (p: StoredPasskey): Passkey => ({ id: p.id, transports: [...p.transports], createdAt: p.createdAt, lastUsedAt: p.lastUsedAt });

export class PasskeyService {
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly #sessions: SessionService;
  readonly #failures: FailureLimiter;
  readonly #log: SessionLog;

  constructor(storage: Storage, clock: Clock, sessions: SessionService, failures: FailureLimiter, log: SessionLog) {
    this.#storage = storage;
    this.#clock = clock;
    this.#sessions = sessions;
    this.#failures = failures;
    this.#log = log;
  }

  /** A new challenge for `staffId`, kept as the base64url the client data will carry (the library encodes bytes so). */
  async #issue(staffId: number): Promise<Uint8Array<ArrayBuffer>> {
    const challenge = new Uint8Array(randomBytes(32));
    const now = this.#clock.now();
    const kept = Buffer.from(challenge).toString('base64url');
    await this.#storage.transaction((tx) => tx.staff.saveChallenge(kept, staffId, new Date(now.getTime() + CHALLENGE_MS), now));
    return challenge;
  }

  /** Takes the challenge the client data carries, issued to `staffId`: unknown, used or expired → undefined. */
  async #take(clientDataJSON: string, staffId: number): Promise<string | undefined> {
    const challenge = challengeOf(clientDataJSON);
    if (challenge === undefined) return undefined;
    const expiresAt = await this.#storage.transaction((tx) => tx.staff.takeChallenge(challenge, staffId));
    return expiresAt !== undefined && Date.parse(expiresAt) > this.#clock.now().getTime() ? challenge : undefined;
  }

  /** The options of a registration for the signed-in person: a discoverable credential verified by the person (a passkey). */
  async registrationOptions(caller: Caller, rp: RelyingParty): Promise<PasskeyOptions> {
    const me = signedIn(caller);
    const [person, existing] = await Promise.all([this.#storage.staff.get(me.id), this.#storage.staff.passkeys(me.id)]);
    if (person === undefined) throw notFound(`staff ${me.id}`);
    if (existing.length >= MAX_PASSKEYS) throw passkeyRefused(`a person has at most ${MAX_PASSKEYS} passkeys; remove one first`);
    return generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userName: person.email,
      userDisplayName: person.name,
      userID: new TextEncoder().encode(`staff:${person.id}`),
      challenge: await this.#issue(me.id),
      timeout: CHALLENGE_MS,
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: [...p.transports] as never })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
  }

  /** Verifies a registration against its challenge (single use) and keeps the passkey. */
  async register(caller: Caller, input: PasskeyRegistration, rp: RelyingParty): Promise<Passkey> {
    const me = signedIn(caller);
    const challenge = await this.#take(input.response.clientDataJSON, me.id);
    if (challenge === undefined) throw passkeyRefused('its challenge is unknown, used already or expired; ask for new options');
    const verified = await verifyRegistrationResponse({
      response: input,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    }).catch((err: unknown) => {
      throw passkeyRefused(err instanceof Error ? err.message : 'the response could not be verified');
    });
    if (!verified.verified) throw passkeyRefused('the response could not be verified');
    const { credential } = verified.registrationInfo;
    const now = this.#clock.now();
    const created = await write(this.#storage, { now }, async (tx) => {
      const added = await tx.staff.addPasskey(
        {
          staffId: me.id,
          credentialId: credential.id,
          publicKey: Buffer.from(credential.publicKey).toString('base64url'),
          counter: credential.counter,
          transports: credential.transports ?? input.response.transports ?? [],
        },
        now,
      );
      return added === undefined ? withoutEvents(added) : onlyActivity(added, 'staff.passkey_added', `staff:${me.id}`);
    });
    if (created === undefined) throw passkeyRefused('this passkey is registered already');
    this.#log.info({ staffId: me.id, passkeyId: created.id, outcome: 'passkey_added' }, 'passkey registered');
    return view(created);
  }

  async list(caller: Caller): Promise<Passkey[]> {
    return (await this.#storage.staff.passkeys(signedIn(caller).id)).map(view);
  }

  async remove(caller: Caller, passkeyId: number): Promise<void> {
    const me = signedIn(caller);
    await write(this.#storage, { now: this.#clock.now() }, async (tx) => {
      if (!(await tx.staff.removePasskey(me.id, passkeyId))) throw notFound(`passkey ${passkeyId}`);
      return onlyActivity(undefined, 'staff.passkey_removed', `staff:${me.id}`);
    });
    this.#log.info({ staffId: me.id, passkeyId, outcome: 'passkey_removed' }, 'passkey removed');
  }

  /** The options of a sign-in: no credentials listed, the browser offers the passkeys it holds for this site. */
  async signInOptions(rp: RelyingParty): Promise<PasskeyOptions> {
    return generateAuthenticationOptions({ rpID: rp.id, challenge: await this.#issue(SIGN_IN), timeout: CHALLENGE_MS, userVerification: 'required' });
  }

  /**
   * Signs in with a passkey alone: the challenge (single use, unexpired), the passkey (known, its
   * person active), the signature, the origin, the relying party and the person's verification must
   * all hold. A failure is counted like a failed password sign-in from the address.
   */
  async signIn(input: PasskeyAssertion, rp: RelyingParty, address: string): Promise<{ token: string; current: CurrentSession }> {
    const blocked = this.#failures.isBlocked(address);
    if (blocked) throw tooMany(blocked.reset);
    try {
      const challenge = await this.#take(input.response.clientDataJSON, SIGN_IN);
      if (challenge === undefined) throw signInRefused('its challenge is unknown, used already or expired; ask for new options');
      const passkey = await this.#storage.staff.passkey(input.id);
      if (passkey === undefined) throw signInRefused('this passkey is not registered here');
      const verified = await verifyAuthenticationResponse({
        response: input,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: {
          id: passkey.credentialId,
          publicKey: Buffer.from(passkey.publicKey, 'base64url'),
          counter: passkey.counter,
          transports: [...passkey.transports] as never,
        },
        requireUserVerification: true,
      }).catch((err: unknown) => {
        throw signInRefused(err instanceof Error ? err.message : 'the assertion could not be verified');
      });
      if (!verified.verified) throw signInRefused('its signature does not verify with the passkey registered');
      const person = await this.#storage.staff.findByEmail((await this.#storage.staff.get(passkey.staffId))?.email ?? '');
      if (person === undefined || person.state !== 'active') throw signInRefused('the person may not sign in');
      await this.#storage.transaction((tx) => tx.staff.usedPasskey(passkey.id, verified.authenticationInfo.newCounter, this.#clock.now()));
      return await this.#sessions.start(person, 'passkey');
    } catch (err) {
      if (err instanceof AppError && err.code === 'unauthorized') {
        this.#log.info({ outcome: 'failed', method: 'passkey' }, 'sign-in failed');
        const verdict = await this.#failures.hit(address);
        if (!verdict.allowed) throw tooMany(verdict.reset);
      }
      throw err;
    }
  }
}

const tooMany = (reset: number) => new AppError('rate_limited', `too many failed sign-ins; retry in ${reset} s`, { 'retry-after': String(reset) });
