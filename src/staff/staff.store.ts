// The staff's storage (storage/sql/sql.staff.ts): people, their one-time links and their sessions.
// What may change and when is decided by the workflows (staff.service.ts, session.service.ts).
import type { Role } from './staff.roles.ts';
import type { Staff, StaffState } from './staff.schemas.ts';

/** A person with what only the workflows read: the password hash and the one-time link's expiry. */
export interface StoredStaff extends Staff {
  readonly passwordHash: string | null;
  readonly invitationExpiresAt: string | null;
}

/** A session as its cookie finds it, with its person's role and state. */
export interface StoredSession {
  readonly id: number;
  readonly staffId: number;
  /** The person's name (the actor of the writes the session makes: activity/). */
  readonly name: string;
  readonly role: Role;
  readonly state: StaffState;
  readonly createdAt: string;
  readonly lastSeenAt: string;
  readonly expiresAt: string;
  readonly endedAt: string | null;
}

/** A person's passkey as the workflows need it: the public key (base64url COSE) and signature counter. */
export interface StoredPasskey {
  readonly id: number;
  readonly staffId: number;
  /** The authenticator's credential id (base64url). */
  readonly credentialId: string;
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

export interface PasskeyCreate {
  readonly staffId: number;
  readonly credentialId: string;
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
}

export interface StaffCreate {
  readonly name: string;
  readonly email: string;
  readonly role: Role;
  readonly state: StaffState;
  readonly invitation: OneTimeLink;
}

/** A one-time link's token hash (hex SHA-256) and expiry. */
export interface OneTimeLink {
  readonly hash: string;
  readonly expiresAt: Date;
}

export interface StaffChange {
  readonly name?: string;
  readonly role?: Role;
  readonly state?: StaffState;
  readonly passwordHash?: string | null;
  /** A new link, or null to clear it (taken up, or the person deactivated). */
  readonly invitation?: OneTimeLink | null;
}

export interface StaffRepository {
  /** A page of the staff, ascending by id after `afterId`. */
  list(query: { readonly limit: number; readonly afterId: number }): Promise<Staff[]>;
  get(id: number): Promise<Staff | undefined>;
  /** The person with this e-mail address (lower case). */
  findByEmail(email: string): Promise<StoredStaff | undefined>;
  /** The session whose token has this hash, ended or not, with its person's role and state. */
  session(tokenHash: string): Promise<StoredSession | undefined>;
  /** The person's sessions not ended, neither expired at `now`, newest first. */
  sessions(staffId: number, now: Date): Promise<StoredSession[]>;
  count(): Promise<number>;
  /** The person's passkeys, oldest first. */
  passkeys(staffId: number): Promise<StoredPasskey[]>;
  /** The passkey with this credential id, whoever's. */
  passkey(credentialId: string): Promise<StoredPasskey | undefined>;
}

export interface StaffTx {
  /** A new person; undefined when the e-mail address is taken. */
  insert(input: StaffCreate, at: Date): Promise<Staff | undefined>;
  /** The person, locked FOR UPDATE. */
  lock(id: number): Promise<StoredStaff | undefined>;
  /** The person whose one-time link has this hash, locked FOR UPDATE. */
  lockByInvitation(hash: string): Promise<StoredStaff | undefined>;
  update(id: number, change: StaffChange): Promise<Staff>;
  /** Records a sign-in. */
  signedIn(id: number, at: Date): Promise<void>;
  /** How many active owners there are, besides `except`. */
  activeOwners(except: number): Promise<number>;
  openSession(input: { readonly staffId: number; readonly tokenHash: string; readonly at: Date; readonly expiresAt: Date }): Promise<StoredSession>;
  /** Records a request of the session at `at`. */
  touchSession(id: number, at: Date): Promise<void>;
  /** Ends the person's open sessions (but `except`), at `at`; how many it ended. */
  endSessions(staffId: number, at: Date, except?: number): Promise<number>;
  /** Ends one of the person's sessions; false when it is not theirs or ended already. */
  endSession(staffId: number, sessionId: number, at: Date): Promise<boolean>;
  /** Deletes the person's sessions that ended or expired before `before` (so they do not pile up). */
  forgetSessions(staffId: number, before: Date): Promise<void>;
  /** A new passkey; undefined when its credential id is registered already. */
  addPasskey(input: PasskeyCreate, at: Date): Promise<StoredPasskey | undefined>;
  /** Deletes one of the person's passkeys; false when it is not theirs. */
  removePasskey(staffId: number, id: number): Promise<boolean>;
  /** Records a sign-in with the passkey and the signature counter it presented. */
  usedPasskey(id: number, counter: number, at: Date): Promise<void>;
  /** Keeps a WebAuthn challenge for `staffId` (0: a sign-in) until `expiresAt`, deleting expired ones. */
  saveChallenge(challenge: string, staffId: number, expiresAt: Date, now: Date): Promise<void>;
  /** Takes (deletes) the challenge issued to `staffId`; its expiry, or undefined when it is unknown or taken already. */
  takeChallenge(challenge: string, staffId: number): Promise<string | undefined>;
}
