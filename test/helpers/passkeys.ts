// A software authenticator for HTTP tests of passkeys: what a browser's navigator.credentials would
// send, made with a P-256 key, for a service reached by inject() (Host localhost:80, so its origin
// and relying party are http://localhost:80 and localhost). The browser test uses Chromium's own.
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

export const PASSKEY_ORIGIN = 'http://localhost:80';
export const PASSKEY_RP_ID = 'localhost';

/** A software authenticator's P-256 key, its COSE public key (CBOR, as WebAuthn stores it) and a credential id. */
export function authenticator(): { readonly credentialId: string; readonly privateKey: KeyObject; readonly cose: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const x = Buffer.from(jwk.x!, 'base64url');
  const y = Buffer.from(jwk.y!, 'base64url');
  // {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}
  const cose = Buffer.concat([Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]), x, Buffer.from([0x22, 0x58, 0x20]), y]);
  return { credentialId: randomBytes(16).toString('base64url'), privateKey, cose: cose.toString('base64url') };
}

const rpIdHash = () => createHash('sha256').update(PASSKEY_RP_ID).digest();

/** What `startAuthentication()` answers: client data for `challenge`, authenticator data (user present and verified), signed by `key`. */
export function assertion(credentialId: string, key: KeyObject, challenge: string, counter = 0) {
  const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin: PASSKEY_ORIGIN, crossOrigin: false }));
  const count = Buffer.alloc(4);
  count.writeUInt32BE(counter);
  const authData = Buffer.concat([rpIdHash(), Buffer.from([0x05]), count]);
  const signature = sign('sha256', Buffer.concat([authData, createHash('sha256').update(clientData).digest()]), key);
  return {
    id: credentialId,
    rawId: credentialId,
    type: 'public-key',
    clientExtensionResults: {},
    response: {
      clientDataJSON: clientData.toString('base64url'),
      authenticatorData: authData.toString('base64url'),
      signature: signature.toString('base64url'),
    },
  };
}

/** What `startRegistration()` answers for `challenge`: attestation "none", the credential of `key` attested in its authenticator data. */
export function registration(key: ReturnType<typeof authenticator>, challenge: string) {
  const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge, origin: PASSKEY_ORIGIN, crossOrigin: false }));
  const id = Buffer.from(key.credentialId, 'base64url');
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(id.length);
  // Flags: user present, user verified, attested credential data; counter 0; an all-zero AAGUID.
  const authData = Buffer.concat([rpIdHash(), Buffer.from([0x45]), Buffer.alloc(4), Buffer.alloc(16), idLength, id, Buffer.from(key.cose, 'base64url')]);
  // CBOR {"fmt": "none", "attStmt": {}, "authData": bytes}
  const attestation = Buffer.concat([
    Buffer.from([0xa3, 0x63, ...Buffer.from('fmt'), 0x64, ...Buffer.from('none'), 0x67, ...Buffer.from('attStmt'), 0xa0, 0x68, ...Buffer.from('authData')]),
    Buffer.from([0x58, authData.length]),
    authData,
  ]);
  return {
    id: key.credentialId,
    rawId: key.credentialId,
    type: 'public-key',
    clientExtensionResults: {},
    response: { clientDataJSON: clientData.toString('base64url'), attestationObject: attestation.toString('base64url'), transports: ['internal'] },
  };
}
