// Secrets travel base64-encoded in .data; .stringData is a write-only convenience.
import type { KubeObject } from './objects.js';
import { isPlainObject } from './objects.js';

export function encodeSecretData(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]),
  );
}

/** Folds stringData into data and defaults the type, as the API server does on write. */
export function normalizeSecret(secret: KubeObject): void {
  if (isPlainObject(secret.stringData)) {
    const plain = Object.fromEntries(
      Object.entries(secret.stringData).map(([k, v]) => [k, String(v)]),
    );
    secret.data = {
      ...(isPlainObject(secret.data) ? secret.data : {}),
      ...encodeSecretData(plain),
    };
    delete secret.stringData;
  }
  secret.type ??= 'Opaque';
}
