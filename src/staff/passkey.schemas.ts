// Passkeys (docs/api.md, "Passkeys"): the WebAuthn ceremonies' JSON as @simplewebauthn/browser sends
// it (base64url fields), and a person's passkeys as the console lists them.
import { Type, type Static } from 'typebox';
import { Id, Timestamp } from '../schemas.ts';

const B64URL = { pattern: '^[A-Za-z0-9_-]*$', maxLength: 16384 } as const;
const base64url = (description: string) => Type.String({ ...B64URL, description });
const TRANSPORTS = Type.Array(Type.String({ maxLength: 32, pattern: '^[a-z-]+$' }), {
  maxItems: 8,
  description: "The authenticator's transports, as the browser reported them (`internal`, `hybrid`, `usb`, `nfc`, `ble`…)",
});
const common = {
  id: base64url("The credential's id"),
  rawId: base64url('The same id (the browser sends both)'),
  authenticatorAttachment: Type.Optional(Type.Union([Type.Literal('platform'), Type.Literal('cross-platform')])),
  clientExtensionResults: Type.Record(Type.String(), Type.Unknown(), { description: 'Extension outputs (unused)' }),
  type: Type.Literal('public-key'),
};

/** A registration ceremony's answer: `startRegistration()`'s result. */
export const PasskeyRegistration = Type.Object(
  {
    ...common,
    response: Type.Object(
      {
        clientDataJSON: base64url('The client data, carrying the challenge and the origin'),
        attestationObject: base64url('The attestation object, carrying the public key'),
        authenticatorData: Type.Optional(base64url('The authenticator data')),
        transports: Type.Optional(TRANSPORTS),
        publicKeyAlgorithm: Type.Optional(Type.Integer({ description: 'COSE algorithm of the public key' })),
        publicKey: Type.Optional(base64url('The public key (SubjectPublicKeyInfo)')),
      },
      { additionalProperties: false },
    ),
  },
  {
    $id: 'PasskeyRegistration',
    additionalProperties: false,
    description: 'The result of `startRegistration()` (@simplewebauthn/browser) or its equivalent',
    examples: [
      {
        id: 'Qm9iJ3MgcGFzc2tleQ',
        rawId: 'Qm9iJ3MgcGFzc2tleQ',
        type: 'public-key',
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        response: { clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0', attestationObject: 'o2NmbXRkbm9uZQ', transports: ['internal', 'hybrid'] },
      },
    ],
  },
);
export type PasskeyRegistration = Static<typeof PasskeyRegistration>;

/** A sign-in ceremony's answer: `startAuthentication()`'s result. */
export const PasskeyAssertion = Type.Object(
  {
    ...common,
    response: Type.Object(
      {
        clientDataJSON: base64url('The client data, carrying the challenge and the origin'),
        authenticatorData: base64url('The authenticator data, carrying the signature counter'),
        signature: base64url('The signature over the authenticator data and the client data'),
        userHandle: Type.Optional(base64url('The user handle the passkey was registered with')),
      },
      { additionalProperties: false },
    ),
  },
  {
    $id: 'PasskeyAssertion',
    additionalProperties: false,
    description: 'The result of `startAuthentication()` (@simplewebauthn/browser) or its equivalent',
    examples: [
      {
        id: 'Qm9iJ3MgcGFzc2tleQ',
        rawId: 'Qm9iJ3MgcGFzc2tleQ',
        type: 'public-key',
        clientExtensionResults: {},
        response: {
          clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0In0',
          authenticatorData: 'SZYN5YgOjGh0NBcPZHZgW4',
          signature: 'MEUCIQD',
          userHandle: 'c3RhZmY6MQ',
        },
      },
    ],
  },
);
export type PasskeyAssertion = Static<typeof PasskeyAssertion>;

/** The options of a ceremony, to hand to `startRegistration()` or `startAuthentication()` as they are. */
export const PasskeyOptions = Type.Object(
  {
    challenge: base64url('Single use; expires after 5 minutes'),
    timeout: Type.Optional(Type.Integer({ description: 'Milliseconds the browser waits for the person' })),
  },
  {
    $id: 'PasskeyOptions',
    additionalProperties: true,
    description: 'WebAuthn `PublicKeyCredentialCreationOptionsJSON` (registration) or `PublicKeyCredentialRequestOptionsJSON` (sign-in)',
    examples: [{ challenge: 'l4tW0Q8lq0c2u1d9k3xQyJv7mZb6nS4oR1pT5aE2fHc', timeout: 300000, rpId: 'shop.example', userVerification: 'required' }],
  },
);
export type PasskeyOptions = Static<typeof PasskeyOptions>;

const PASSKEY_EXAMPLE = { id: 3, transports: ['internal', 'hybrid'], createdAt: '2026-11-23T08:55:00.000Z', lastUsedAt: '2026-11-24T09:02:00.000Z' };

/** One of the signed-in person's passkeys. */
export const Passkey = Type.Object(
  {
    id: { ...Id('Identifier of the passkey'), examples: [3] },
    transports: TRANSPORTS,
    createdAt: Timestamp('When it was registered'),
    lastUsedAt: Type.Union([Timestamp('When it last signed the person in'), Type.Null()]),
  },
  { $id: 'Passkey', additionalProperties: false, examples: [PASSKEY_EXAMPLE] },
);
export type Passkey = Static<typeof Passkey>;
export const Passkeys = Type.Array(Type.Unsafe<Passkey>({ $ref: 'Passkey#' }), { $id: 'Passkeys', description: "The person's passkeys, oldest first" });

export const PasskeyIdParams = Type.Object({ passkeyId: Id('The identifier of the passkey') }, { additionalProperties: false });
