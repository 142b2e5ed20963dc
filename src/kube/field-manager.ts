/** pod-bouncer's name in the cluster: the component of the Events it records. */
export const COMPONENT = 'pod-bouncer';

/** The longest field manager the API server takes (apimachinery's ValidateFieldManager). */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/**
 * The field manager of a credential's inline directives (DESIGN §2): `pod-bouncer-<name>`, the `:`
 * of a service account's `ns:name` written as `.` (`pod-bouncer-certs.issuer`). One manager per
 * credential: applied without force, a directive one credential wrote is another's 409, not its
 * to overwrite. (Kept apart from the gateway, which loads client-node: the api names the manager
 * before it needs the API server.)
 */
export function inlineFieldManager(credential: string): string {
  return `${COMPONENT}-${credential.replaceAll(':', '.')}`;
}
