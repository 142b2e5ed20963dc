import { DONE, type StepContext, type StepOutcome } from '../context.js';
import { secretReadsOf } from '../secret-reads.js';
import { stepAside } from './order.js';
import { digestOf } from '../wakeups.js';

/**
 * Waits until the namespace's root-cert ConfigMap carries the issuer's root certificate, so the
 * pods about to restart come back trusting the new root. Byte-exact comparison; a missing
 * ConfigMap, Secret or key means "not yet". The Secret is compared by its SHA-256, from a read
 * shared with the process's other jobs that began after this run was accepted (`secret-reads.ts`).
 */
export async function rootCertSync(context: StepContext): Promise<StepOutcome> {
  const sync = context.data.selector.rootCertSync;
  if (sync === undefined) return DONE;
  const { kube, settings } = context.deps;
  // The ConfigMap from the shared watch when synced; the Secret is only ever read by name.
  const watched = context.deps.view?.configMapKey(sync.configMapRef, sync.configMapKey);
  const since = Date.parse(context.data.acceptedAt);
  const [secret, configMap] = await Promise.all([
    secretReadsOf(kube).digest(sync.secretRef, sync.secretKey, since),
    watched === undefined
      ? kube.readConfigMapKey(sync.configMapRef, sync.configMapKey)
      : Promise.resolve(watched.value),
  ]);
  if (secret !== undefined && configMap !== undefined && digestOf(configMap) === secret) {
    context.note(
      `root cert of ${sync.configMapRef.namespace}/${sync.configMapRef.name} matches secret ${sync.secretRef.namespace}/${sync.secretRef.name}`,
    );
    return DONE;
  }
  const missing =
    secret === undefined
      ? 'Secret key missing'
      : configMap === undefined
        ? 'ConfigMap key missing'
        : 'ConfigMap differs';
  return {
    wait: await stepAside(context, {
      what: `root cert in configmap ${sync.configMapRef.namespace}/${sync.configMapRef.name} key ${sync.configMapKey} to match secret ${sync.secretRef.namespace}/${sync.secretRef.name} key ${sync.secretKey} (${missing})`,
      status: `root cert sync (${missing})`,
      timeoutSeconds: settings.rootCertSyncTimeoutSeconds,
      ...(secret === undefined
        ? {}
        : {
            wake: {
              kind: 'configMapKey' as const,
              ref: sync.configMapRef,
              key: sync.configMapKey,
              digest: secret,
            },
          }),
    }),
  };
}
