import type { Harness } from './harness.js';

/** A rootCertSync gate: the Secret cacerts of one namespace into istio-ca-root-cert of another. */
export function rootCertSync(secretNamespace: string, configMapNamespace = secretNamespace) {
  return {
    secretRef: { name: 'cacerts', namespace: secretNamespace },
    secretKey: 'root-cert.pem',
    configMapRef: { name: 'istio-ca-root-cert', namespace: configMapNamespace },
    configMapKey: 'root-cert.pem',
  };
}

/** A root cert not synced yet: NEW ROOT in the Secret, OLD ROOT in the ConfigMap. */
export function unsyncedRootCert(
  h: Harness,
  secretNamespace: string,
  configMapNamespace = secretNamespace,
): void {
  h.sim.putSecret(secretNamespace, 'cacerts', { 'root-cert.pem': 'NEW ROOT' });
  h.sim.putConfigMap(configMapNamespace, 'istio-ca-root-cert', { 'root-cert.pem': 'OLD ROOT' });
}

/** What Istio does at last: the ConfigMap holds the new root. */
export function syncRootCert(h: Harness, configMapNamespace: string): void {
  h.sim.putConfigMap(configMapNamespace, 'istio-ca-root-cert', { 'root-cert.pem': 'NEW ROOT' });
}
