// The staff workflows (docs/api.md, "Staff and sessions"): inviting a person, taking up a one-time
// link, changing a role, resetting a password, deactivating; each in one transaction.
import { hash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { AppError, notFound } from '../errors.ts';
import type { CursorCodec, Page } from '../paging.ts';
import type { PageQuery } from '../schemas.ts';
import { changesOf } from '../activity/activity.changes.ts';
import { onlyActivity, write } from '../events/event.outbox.ts';
import type { Storage } from '../storage/storage.ts';
import { checkPassword, type PasswordHasher } from './staff.password.ts';
import { managesRole, type Role } from './staff.roles.ts';
import type { AcceptInvitation, InvitedStaff, NewStaff, Staff, StaffPatch } from './staff.schemas.ts';
import type { OneTimeLink, StaffTx, StoredStaff } from './staff.store.ts';

/** How long an invitation or reset link works. */
export const INVITATION_HOURS = 72;
const INVITATION_PREFIX = 'psi_';

/** Who acts on the staff: an owner (owner session or key, bootstrap key, the CLI) manages every role, anyone else with staff:admin only clerks and viewers. */
export interface StaffActor {
  readonly owner: boolean;
  /** The person acting, when signed in as one. */
  readonly staffId?: number;
}

/** The operator's CLI. */
export const STAFF_OPERATOR: StaffActor = Object.freeze({ owner: true });

/** Tokens are random and long, so one SHA-256 is the right hash (as for API keys). */
export const hashToken = (token: string): string => hash('sha256', token, 'hex');

function newLink(now: Date): { token: string; link: OneTimeLink } {
  const token = INVITATION_PREFIX + randomBytes(32).toString('base64url');
  return { token, link: { hash: hashToken(token), expiresAt: new Date(now.getTime() + INVITATION_HOURS * 3_600_000) } };
}

/** The link a person opens: the console's welcome page, the token in the fragment (which no request carries, so no log sees it). */
export function invitationUrl(origin: string, token: string): string {
  return `${origin}/console/#/welcome?token=${token}`;
}

export const invalidInvitation = (): AppError =>
  new AppError('invalid_invitation', 'this link is unknown, was used already or has expired; ask an owner or a manager for a new one');

export const staffExists = (email: string): AppError => new AppError('staff_exists', `a person with the e-mail address ${email} exists already`);

export const lastOwner = (id: number): AppError => new AppError('last_owner', `person ${id} is the last active owner; make another person an owner first`);

function refuseRole(role: Role): AppError {
  return new AppError('insufficient_scope', `only an owner manages ${role}s`);
}

export class StaffService {
  readonly #storage: Storage;
  readonly #cursors: CursorCodec;
  readonly #clock: Clock;
  readonly #hasher: PasswordHasher;

  constructor(storage: Storage, cursors: CursorCodec, clock: Clock, hasher: PasswordHasher) {
    this.#storage = storage;
    this.#cursors = cursors;
    this.#clock = clock;
    this.#hasher = hasher;
  }

  list(q: PageQuery): Promise<Page<Staff>> {
    return this.#cursors.fetchPage('staff', q, (limit, afterId = 0) => this.#storage.staff.list({ limit, afterId }));
  }

  async get(id: number): Promise<Staff> {
    const person = await this.#storage.staff.get(id);
    if (person === undefined) throw notFound(`person ${id}`);
    return person;
  }

  /** Invites a person: a new account in state `invited` and its one-time link (409 staff_exists when the address is taken). */
  async invite(input: NewStaff, actor: StaffActor, origin: string): Promise<InvitedStaff> {
    if (!managesRole(actor.owner, input.role)) throw refuseRole(input.role);
    const now = this.#clock.now();
    const { token, link } = newLink(now);
    const email = input.email.toLowerCase();
    const staff = await write(this.#storage, { now }, async (tx) => {
      const invited = await tx.staff.insert({ name: input.name, email, role: input.role, state: 'invited', invitation: link }, now);
      return invited === undefined ? { result: invited, events: [] } : onlyActivity(invited, 'staff.invited', `staff:${invited.id}`);
    });
    if (staff === undefined) throw staffExists(email);
    return { staff, invitation: { url: invitationUrl(origin, token), token, expiresAt: link.expiresAt.toISOString() } };
  }

  /** Changes a person's name or role; the last active owner keeps the role (409 last_owner). */
  update(id: number, patch: StaffPatch, actor: StaffActor): Promise<Staff> {
    return write(this.#storage, { now: this.#clock.now() }, async (tx) => {
      const person = await this.#lockManaged(tx.staff, id, actor);
      if (patch.role !== undefined && !managesRole(actor.owner, patch.role)) throw refuseRole(patch.role);
      if (patch.role !== undefined && patch.role !== 'owner') await this.#keepAnOwner(tx.staff, person);
      const staff = await tx.staff.update(id, patch);
      const changes = changesOf({ name: person.name, role: person.role }, { name: staff.name, role: staff.role });
      return { result: staff, events: [], activity: [{ type: 'staff.updated', resource: `staff:${id}`, changes }] };
    });
  }

  /** Ends a person's password and sessions and makes a new one-time link (owners only: the route holds staff:admin, this checks ownership). */
  async reset(id: number, actor: StaffActor, origin: string): Promise<InvitedStaff> {
    if (!actor.owner) throw new AppError('insufficient_scope', "only an owner resets a person's password");
    const now = this.#clock.now();
    const { token, link } = newLink(now);
    const staff = await write(this.#storage, { now }, async (tx) => {
      const person = await this.#lockManaged(tx.staff, id, actor);
      if (person.state === 'deactivated') throw new AppError('forbidden', `person ${id} is deactivated`);
      await tx.staff.endSessions(id, now);
      return onlyActivity(await tx.staff.update(id, { passwordHash: null, invitation: link }), 'staff.reset', `staff:${id}`);
    });
    return { staff, invitation: { url: invitationUrl(origin, token), token, expiresAt: link.expiresAt.toISOString() } };
  }

  /** Deactivates a person: they can no longer sign in, and their sessions end at once. */
  deactivate(id: number, actor: StaffActor): Promise<Staff> {
    const now = this.#clock.now();
    return write(this.#storage, { now }, async (tx) => {
      const person = await this.#lockManaged(tx.staff, id, actor);
      await this.#keepAnOwner(tx.staff, person);
      await tx.staff.endSessions(id, now);
      return onlyActivity(await tx.staff.update(id, { state: 'deactivated', invitation: null }), 'staff.deactivated', `staff:${id}`);
    });
  }

  /** Takes up a one-time link: sets the person's password, once, within 72 hours. */
  async accept(input: AcceptInvitation): Promise<Staff> {
    checkPassword(input.password, 'password');
    const passwordHash = await this.#hasher.hash(input.password);
    const now = this.#clock.now();
    return write(this.#storage, { now }, async (tx) => {
      const person = await tx.staff.lockByInvitation(hashToken(input.token));
      if (person === undefined || person.state === 'deactivated' || Date.parse(person.invitationExpiresAt!) <= now.getTime()) throw invalidInvitation();
      const staff = await tx.staff.update(person.id, { state: 'active', passwordHash, invitation: null });
      // Nobody is signed in yet: the person taking up the link is the actor.
      return { ...onlyActivity(staff, 'staff.joined', `staff:${person.id}`), actor: { type: 'staff', id: person.id, name: person.name } };
    });
  }

  async #lockManaged(tx: StaffTx, id: number, actor: StaffActor): Promise<StoredStaff> {
    const person = await tx.lock(id);
    if (person === undefined) throw notFound(`person ${id}`);
    if (!managesRole(actor.owner, person.role)) throw refuseRole(person.role);
    return person;
  }

  /** An owner who is the last active one keeps the shop from being left without anyone who can manage it. */
  async #keepAnOwner(tx: StaffTx, person: StoredStaff): Promise<void> {
    if (person.role === 'owner' && person.state === 'active' && (await tx.activeOwners(person.id)) === 0) throw lastOwner(person.id);
  }
}
